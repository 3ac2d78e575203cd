package analyzer

import (
	"regexp"
	"strconv"
	"strings"
)

// This file recognizes uncaught errors of runtimes other than Python's:
// Node.js, the JVM, Go and Rust panics.

var (
	nodeErrorRE  = regexp.MustCompile(`(?m)^(?P<type>[A-Z]\w*(?:Error|Exception)|Error)(?: \[(?P<code>[A-Z_]+)\])?: (?P<msg>.*)$`)
	nodeFrameRE  = regexp.MustCompile(`^\s+at (?:(\S+) \()?((?:file://)?[^()\s]+?):(\d+):\d+\)?$`)
	nodeBannerRE = regexp.MustCompile(`(?m)^Node\.js v\d+`)
	nodeModuleRE = regexp.MustCompile(`Cannot find (?:module|package) '([^']+)'`)
)

// nodeCategories sends Node error codes to the categories they name.
var nodeCategories = map[string]Category{
	"ECONNREFUSED": Connection, "ECONNRESET": Connection, "ENOTFOUND": Connection, "ETIMEDOUT": Timeout,
	"EACCES": Permission, "EPERM": Permission, "ENOENT": MissingFile,
}

// matchNode recognizes an uncaught Node.js error: "TypeError: …" followed
// by "    at …" frames, and usually Node's "Node.js vX" banner.
func matchNode(out string, _ *Command, claimsSuccess bool) *Diagnosis {
	for _, m := range nodeErrorRE.FindAllStringSubmatchIndex(out, -1) {
		rest := out[m[1]:]
		if !strings.HasPrefix(strings.TrimLeft(rest, "\r"), "\n    at ") {
			continue
		}
		if claimsSuccess && !nodeBannerRE.MatchString(rest) {
			return nil
		}
		typ, msg := out[m[2]:m[3]], out[m[6]:m[7]]
		code := ""
		if m[4] >= 0 {
			code = out[m[4]:m[5]]
			typ += " [" + code + "]"
		}
		exc := &ExceptionInfo{Type: typ, Message: cut(strings.TrimSpace(msg), 200)}
		d := &Diagnosis{Category: Exception, Message: cut(out[m[0]:m[1]], 200), Exception: exc}
		for line := range strings.Lines(rest) {
			f := nodeFrameRE.FindStringSubmatch(strings.TrimRight(line, "\r\n"))
			if f == nil {
				continue
			}
			file := strings.TrimPrefix(f[2], "file://")
			if strings.HasPrefix(file, "node:") || strings.Contains(file, "node_modules") {
				if exc.Innermost == "" {
					exc.Innermost = file + ":" + f[3]
				}
				continue
			}
			exc.File, exc.Func = file, f[1]
			exc.Line, _ = strconv.Atoi(f[3])
			break
		}
		if exc.File != "" && exc.Innermost == exc.File+":"+strconv.Itoa(exc.Line) {
			exc.Innermost = ""
		}
		if mm := nodeModuleRE.FindStringSubmatch(msg); mm != nil {
			d.Module = mm[1]
		}
		for c, cat := range nodeCategories {
			if strings.Contains(code, c) || strings.Contains(msg, c) {
				d.Category = cat
			}
		}
		return d
	}
	return nil
}

var (
	javaExceptionRE = regexp.MustCompile(`(?m)^(?:Exception in thread "[^"]*" |Caused by: )(?P<type>(?:[a-z]\w*\.)+[A-Z]\w*)(?:: (?P<msg>.*))?$`)
	javaFrameRE     = regexp.MustCompile(`^\s+at ((?:[\w$]+\.)+[\w$<>]+)\(([\w$]+\.(?:java|kt|scala|groovy)):(\d+)\)`)
)

// matchJVM recognizes an uncaught JVM exception: `Exception in thread
// "main" java.lang.X: message` and its "at" frames; the last "Caused by:"
// names the root cause.
func matchJVM(out string, _ *Command, claimsSuccess bool) *Diagnosis {
	all := javaExceptionRE.FindAllStringSubmatchIndex(out, -1)
	if all == nil || claimsSuccess && !strings.Contains(out, "Exception in thread") {
		return nil
	}
	m := all[len(all)-1]
	exc := &ExceptionInfo{Type: out[m[2]:m[3]]}
	if m[4] >= 0 {
		exc.Message = cut(strings.TrimSpace(out[m[4]:m[5]]), 200)
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
	return &Diagnosis{Category: Exception, Message: cut(msg, 200), Exception: exc}
}

var (
	goPanicRE   = regexp.MustCompile(`(?m)^panic: (.*)$`)
	goFrameRE   = regexp.MustCompile(`(?m)^([\w./*()-]+)\(.*\)\n\t(\S+\.go):(\d+)`)
	rustPanicRE = regexp.MustCompile(`(?m)^thread '[^']*' panicked at (?:'(.*)', )?(\S+?):(\d+):\d+:?$`)
)

// matchPanic recognizes a Go panic with its goroutine trace, and a Rust
// panic ("thread 'main' panicked at src/main.rs:5:10:").
func matchPanic(out string, _ *Command, _ bool) *Diagnosis {
	if m := goPanicRE.FindStringSubmatchIndex(out); m != nil && strings.Contains(out[m[1]:], "goroutine ") {
		exc := &ExceptionInfo{Type: "panic", Message: cut(strings.TrimSpace(out[m[2]:m[3]]), 200)}
		for _, f := range goFrameRE.FindAllStringSubmatch(out[m[1]:], -1) {
			if strings.HasPrefix(f[1], "runtime.") || strings.Contains(f[2], "/go/src/runtime/") {
				continue
			}
			exc.Func, exc.File = f[1], f[2]
			exc.Line, _ = strconv.Atoi(f[3])
			break
		}
		return &Diagnosis{Category: Exception, Message: cut("panic: "+exc.Message, 200), Exception: exc}
	}
	if m := rustPanicRE.FindStringSubmatchIndex(out); m != nil {
		exc := &ExceptionInfo{Type: "panic", File: out[m[4]:m[5]]}
		exc.Line, _ = strconv.Atoi(out[m[6]:m[7]])
		if m[2] >= 0 { // before Rust 1.73 the message was on the same line
			exc.Message = out[m[2]:m[3]]
		} else if next, _, _ := strings.Cut(strings.TrimLeft(out[m[1]:], "\r\n"), "\n"); next != "" {
			exc.Message = strings.TrimSpace(next)
		}
		exc.Message = cut(exc.Message, 200)
		return &Diagnosis{Category: Exception, Message: cut("panicked: "+exc.Message, 200), Exception: exc}
	}
	return nil
}
