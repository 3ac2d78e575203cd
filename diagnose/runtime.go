package diagnose

import (
	"path"
	"strconv"
	"strings"

	"github.com/retrace-dev/retrace/internal/prefilter"
	"github.com/retrace-dev/retrace/internal/termtext"
	"github.com/retrace-dev/retrace/shell"
)

// This file recognizes uncaught errors of runtimes other than Python's:
// Node.js, the JVM, Go and Rust panics.

var (
	nodeErrorRE  = prefilter.MustCompile(`(?m)^(?P<type>[A-Z]\w*(?:Error|Exception)|Error)(?: \[(?P<code>[A-Z_]+)\])?: (?P<msg>.*)$`)
	nodeFrameRE  = prefilter.MustCompile(`^\s+at (?:(?:async )?(.+?) \()?((?:file://)?[^()\s]+?):(\d+):\d+\)?$`)
	nodeBannerRE = prefilter.MustCompile(`(?m)^Node\.js v\d+`)
	nodeModuleRE = prefilter.MustCompile(`Cannot find (?:module|package) '([^']+)'`)
	// nodeRequireRE matches the "Require stack:" list that may come
	// between a require error and its frames.
	nodeRequireRE = prefilter.MustCompile(`^(?:Require stack:|- .*)$`)
)

// matchNode recognizes an uncaught Node.js error: "TypeError: …" followed
// by "    at …" frames, and usually Node's "Node.js vX" banner.
func matchNode(out string, cmd *shell.Command, claimsSuccess bool) *Diagnosis {
	for _, m := range nodeErrorRE.FindAllStringSubmatchIndex(out, -1) {
		frames := nodeFrames(out[m[1]:])
		if frames == nil {
			continue
		}
		if claimsSuccess && !nodeBannerRE.MatchString(out[m[1]:]) {
			return nil
		}
		typ, msg := out[m[2]:m[3]], out[m[6]:m[7]]
		if m[4] >= 0 {
			typ += " [" + out[m[4]:m[5]] + "]"
		}
		exc := &ExceptionInfo{Type: typ, Message: termtext.Cut(strings.TrimSpace(msg), 200)}
		setFrame(exc, frames, func(file string) bool {
			return strings.HasPrefix(file, "node:") || strings.Contains(file, "node_modules")
		})
		d := &Diagnosis{Category: exceptionCategory(typ, msg), Message: termtext.Cut(out[m[0]:m[1]], 200), Exception: exc}
		if mm := nodeModuleRE.FindStringSubmatch(msg); mm != nil {
			d.Module = mm[1]
			if cmd != nil && path.Base(mm[1]) == cmd.Target {
				d.Category = MissingFile // the script it was to run is not there
			}
		}
		return d
	}
	return nil
}

// nodeFrames returns the "    at" frames that start rest, innermost first,
// or nil when rest does not start with them.
func nodeFrames(rest string) []ExceptionInfo {
	var frames []ExceptionInfo
	for line := range strings.Lines(strings.TrimLeft(rest, "\r\n")) {
		line = strings.TrimRight(line, "\r\n")
		if frames == nil && nodeRequireRE.MatchString(line) {
			continue
		}
		f := nodeFrameRE.FindStringSubmatch(line)
		if f == nil {
			break
		}
		n, _ := strconv.Atoi(f[3])
		frames = append(frames, ExceptionInfo{File: strings.TrimPrefix(f[2], "file://"), Line: n, Func: f[1]})
	}
	return frames
}

// setFrame sets exc's frame to the innermost of frames (innermost first)
// that is not in a dependency or the runtime, as installed says, or else
// to the innermost of all. When they differ, Innermost names the latter.
func setFrame(exc *ExceptionInfo, frames []ExceptionInfo, installed func(file string) bool) {
	if len(frames) == 0 {
		return
	}
	f := frames[0]
	for _, g := range frames {
		if !installed(g.File) {
			f = g
			break
		}
	}
	exc.File, exc.Line, exc.Func = f.File, f.Line, f.Func
	if in := frames[0]; in.File != f.File || in.Line != f.Line {
		exc.Innermost = in.File + ":" + strconv.Itoa(in.Line)
	}
}

var (
	javaExceptionRE = prefilter.MustCompile(`(?m)^(?:Exception in thread "[^"]*" |Caused by: )(?P<type>(?:[a-z]\w*\.)+[A-Z]\w*)(?:: (?P<msg>.*))?$`)
	javaFrameRE     = prefilter.MustCompile(`^\s+at ((?:[\w$]+\.)+[\w$<>]+)\(([\w$]+\.(?:java|kt|scala|groovy)):(\d+)\)`)
)

// matchJVM recognizes an uncaught JVM exception: `Exception in thread
// "main" java.lang.X: message` and its "at" frames; the last "Caused by:"
// names the root cause.
func matchJVM(out string, _ *shell.Command, claimsSuccess bool) *Diagnosis {
	all := javaExceptionRE.FindAllStringSubmatchIndex(out, -1)
	if all == nil || claimsSuccess && !strings.Contains(out, "Exception in thread") {
		return nil
	}
	m := all[len(all)-1]
	exc := &ExceptionInfo{Type: out[m[2]:m[3]]}
	if m[4] >= 0 {
		exc.Message = termtext.Cut(strings.TrimSpace(out[m[4]:m[5]]), 200)
	}
	for line := range strings.Lines(out[m[1]:]) {
		f := javaFrameRE.FindStringSubmatch(strings.TrimRight(line, "\r\n"))
		if f == nil {
			continue
		}
		if strings.HasPrefix(f[1], "java.") || strings.HasPrefix(f[1], "jdk.") || strings.HasPrefix(f[1], "sun.") || strings.HasPrefix(f[1], "kotlin.") {
			continue
		}
		exc.File, exc.Func = f[2], f[1]
		exc.Line, _ = strconv.Atoi(f[3])
		break
	}
	msg := exc.Type
	if exc.Message != "" {
		msg += ": " + exc.Message
	}
	return &Diagnosis{Category: exceptionCategory(exc.Type, exc.Message), Message: termtext.Cut(msg, 200), Exception: exc}
}

var (
	goPanicRE   = prefilter.MustCompile(`(?m)^panic: (.*)$`)
	goFrameRE   = prefilter.MustCompile(`(?m)^([\w./*()-]+)\(.*\)\n\t(\S+\.go):(\d+)`)
	rustPanicRE = prefilter.MustCompile(`(?m)^thread '[^']*'(?: \(\d+\))? panicked at (?:'(.*)', )?(\S+?):(\d+):\d+:?$`) // Rust 1.89 prints the thread's id
)

// matchPanic recognizes a Go panic with its goroutine trace, and a Rust
// panic ("thread 'main' panicked at src/main.rs:5:10:").
func matchPanic(out string, _ *shell.Command, _ bool) *Diagnosis {
	if m := goPanicRE.FindStringSubmatchIndex(out); m != nil && strings.Contains(out[m[1]:], "goroutine ") {
		exc := &ExceptionInfo{Type: "panic", Message: termtext.Cut(strings.TrimSpace(out[m[2]:m[3]]), 200)}
		var frames []ExceptionInfo
		for _, f := range goFrameRE.FindAllStringSubmatch(goroutine(out[m[1]:]), -1) {
			if strings.HasPrefix(f[1], "runtime.") || strings.Contains(f[2], "/src/runtime/") {
				continue // the panic itself
			}
			n, _ := strconv.Atoi(f[3])
			frames = append(frames, ExceptionInfo{File: f[2], Line: n, Func: f[1]})
		}
		setFrame(exc, frames, func(file string) bool {
			return strings.Contains(file, "/pkg/mod/") || strings.Contains(file, "/vendor/") || strings.Contains(file, "/go/src/")
		})
		return &Diagnosis{Category: exceptionCategory("panic", exc.Message), Message: termtext.Cut("panic: "+exc.Message, 200), Exception: exc}
	}
	if m := rustPanicRE.FindStringSubmatchIndex(out); m != nil {
		exc := &ExceptionInfo{Type: "panic", File: out[m[4]:m[5]]}
		exc.Line, _ = strconv.Atoi(out[m[6]:m[7]])
		if m[2] >= 0 { // before Rust 1.73 the message was on the same line
			exc.Message = out[m[2]:m[3]]
		} else if next, _, _ := strings.Cut(strings.TrimLeft(out[m[1]:], "\r\n"), "\n"); next != "" {
			exc.Message = strings.TrimSpace(next)
		}
		exc.Message = termtext.Cut(exc.Message, 200)
		return &Diagnosis{Category: Exception, Message: termtext.Cut("panicked: "+exc.Message, 200), Exception: exc}
	}
	return nil
}

// goroutine returns the first goroutine's trace in a Go panic's output: the
// one that panicked.
func goroutine(s string) string {
	_, s, _ = strings.Cut(s, "goroutine ")
	if i := strings.Index(s, "\n\ngoroutine "); i >= 0 {
		s = s[:i]
	}
	return s
}
