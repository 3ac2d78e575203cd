package diagnose

import (
	"slices"
	"strings"

	"github.com/retrace-dev/retrace/internal/prefilter"
	"github.com/retrace-dev/retrace/internal/termtext"
	"github.com/retrace-dev/retrace/shell"
)

// This file recognizes the usage errors of command-line parsers whose
// output has a shape of its own. Each matcher needs the parser's whole
// shape, its usage line and its error line, so that text merely mentioning
// "error:" is not taken for one. The other parsers are data, in families.go.

var (
	argparseErrorRE  = prefilter.MustCompile(`(?m)^(.+?): error: (.+)$`)
	argparseArgRE    = prefilter.MustCompile(`^argument (\S+?)(?:/\S+)?: (.*)$`)
	argparseChoiceRE = prefilter.MustCompile(`invalid choice: '(.*?)'(?:, maybe you meant '(.*?)'\?)? \(choose from (.*)\)`)
	argparseWithRE   = prefilter.MustCompile(`not allowed with argument (\S+)`)
	quotedRE         = prefilter.MustCompile(`'([^']*)'`)
	flagRE           = prefilter.MustCompile(`(?:^|[\s\[(|,{=])(--?[A-Za-z0-9][\w.-]*)`)
	clusterRE        = prefilter.MustCompile(`\[-([A-Za-z0-9]{2,})\]`)
)

// matchArgparse recognizes Python argparse: a "usage: PROG …" block
// followed by "PROG: error: MESSAGE".
func matchArgparse(out string, _ *shell.Command, _ bool) *Diagnosis {
	for _, m := range argparseErrorRE.FindAllStringSubmatchIndex(out, -1) {
		prog, msg := out[m[2]:m[3]], strings.TrimSpace(out[m[4]:m[5]])
		usage := usageBlock(out[:m[0]], "usage: "+prog)
		if usage == "" && (!strings.HasSuffix(prog, ".py") || strings.ContainsAny(prog, " \t")) {
			continue // without its usage line, only "script.py: error:" will do
		}
		d := &Diagnosis{Category: CLIUsage, Parser: "argparse", Message: termtext.Cut(msg, 200)}
		d.ValidFlags = usageFlags(usage)
		explainArgparse(d, msg)
		return d
	}
	return nil
}

// explainArgparse fills in the details of an argparse error message.
func explainArgparse(d *Diagnosis, msg string) {
	if rest, ok := strings.CutPrefix(msg, "unrecognized arguments: "); ok {
		d.BadFlags = flagWords(strings.Fields(rest))
		return
	}
	if rest, ok := strings.CutPrefix(msg, "the following arguments are required: "); ok {
		d.Missing = strings.Split(rest, ", ")
		return
	}
	if rest, ok := strings.CutPrefix(msg, "ambiguous option: "); ok {
		opt, matches, _ := strings.Cut(rest, " could match ")
		d.BadFlags = []string{strings.SplitN(opt, "=", 2)[0]}
		d.Suggestions = strings.Split(matches, ", ")
		return
	}
	m := argparseArgRE.FindStringSubmatch(msg)
	if m == nil {
		return
	}
	d.BadFlags = []string{m[1]}
	if w := argparseWithRE.FindStringSubmatch(m[2]); w != nil {
		d.BadFlags = append(d.BadFlags, w[1])
	}
	if c := argparseChoiceRE.FindStringSubmatch(m[2]); c != nil {
		if !strings.HasPrefix(m[1], "-") {
			d.BadFlags = []string{c[1]} // a positional, such as a subcommand: the word typed
		}
		if c[2] != "" {
			d.Suggestions = []string{c[2]}
		}
		for _, q := range quotedRE.FindAllStringSubmatch(c[3], -1) {
			d.Choices = append(d.Choices, q[1])
		}
		if d.Choices == nil { // Python 3.14 no longer quotes them
			d.Choices = strings.Split(c[3], ", ")
		}
	}
}

var (
	// A script that ran the program may print its streams under a label.
	clickUsageRE = prefilter.MustCompile(`(?m)^(?:(?i:stderr|stdout|output): *)?Usage: \S+`)
	clickErrorRE = prefilter.MustCompile(`(?m)^Error: (.+)$`)
	clickMeantRE = prefilter.MustCompile(`(?:Did you mean|Possible options:) ([^)?]+)`)
	clickIsNotRE = prefilter.MustCompile(`is not one of (.*)\.$`)
	typerBoxRE   = prefilter.MustCompile(`(?m)^╭─+ Error ─+╮$`)
)

// matchClick recognizes Python click: "Usage: PROG …", then "Error:
// MESSAGE".
func matchClick(out string, _ *shell.Command, _ bool) *Diagnosis {
	loc := clickUsageRE.FindStringIndex(out)
	if loc == nil {
		return nil
	}
	m := clickErrorRE.FindStringSubmatch(out[loc[0]:])
	if m == nil {
		return nil
	}
	d := clickDiagnosis("click", strings.TrimSpace(m[1]))
	d.ValidFlags = usageFlags(usageBlock(out, "Usage: "))
	return d
}

// matchTyper recognizes typer's usage errors, which click's message in a
// box: "╭─ Error ─╮ │ MESSAGE │ ╰─╯", usually after "Usage: PROG …".
func matchTyper(out string, _ *shell.Command, _ bool) *Diagnosis {
	loc := typerBoxRE.FindStringIndex(out)
	if loc == nil {
		return nil
	}
	var msg []string
	for line := range strings.Lines(out[loc[1]:]) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "╰") {
			break
		}
		if text := strings.TrimSpace(strings.Trim(line, "│")); text != "" {
			msg = append(msg, text)
		}
	}
	if len(msg) == 0 {
		return nil
	}
	d := clickDiagnosis("typer", strings.Join(msg, " "))
	d.ValidFlags = usageFlags(usageBlock(out, "Usage: "))
	return d
}

// clickDiagnosis reads the details of a click error message, in the
// wordings of click 7 and 8: "No such option: -x", "No such option
// '--format'. Did you mean '--fmt'?".
func clickDiagnosis(parser, msg string) *Diagnosis {
	d := &Diagnosis{Category: CLIUsage, Parser: parser, Message: termtext.Cut(msg, 200)}
	quoted := func() string {
		if q := quotedRE.FindStringSubmatch(msg); q != nil {
			return q[1]
		}
		return ""
	}
	switch {
	case strings.HasPrefix(msg, "No such option: "):
		d.BadFlags = flagWords(strings.Fields(strings.TrimPrefix(msg, "No such option: "))[:1])
	case strings.HasPrefix(msg, "No such option '"):
		d.BadFlags = []string{quoted()}
	case strings.HasPrefix(msg, "Missing option ") || strings.HasPrefix(msg, "Missing argument "):
		if q := quoted(); q != "" {
			d.Missing = []string{q}
		}
	case strings.HasPrefix(msg, "Invalid value for "):
		if f := strings.Fields(quoted()); len(f) > 0 {
			d.BadFlags = flagWords(f[:1])
		}
		if c := clickIsNotRE.FindStringSubmatch(msg); c != nil {
			d.Choices = listWords(c[1])
		}
	case strings.HasPrefix(msg, "Got unexpected extra argument"):
		if i, j := strings.IndexByte(msg, '('), strings.LastIndexByte(msg, ')'); i >= 0 && j > i {
			d.BadFlags = strings.Fields(msg[i+1 : j])
		}
	case strings.HasPrefix(msg, "No such command "):
		d.BadFlags = []string{quoted()}
	}
	if s := clickMeantRE.FindStringSubmatch(msg); s != nil {
		d.Suggestions = listWords(s[1])
	}
	return d
}

var (
	clapErrorRE    = prefilter.MustCompile(`(?m)^error: (.+)$`)
	clapTipRE      = prefilter.MustCompile(`(?m)^\s*tip: (?:a similar|some similar) \w+ exists?: (.+)$`)
	clapPossibleRE = prefilter.MustCompile(`\[possible values: ([^\]]*)\]`)
)

// matchClap recognizes Rust's clap: "error: MESSAGE", optional tips, the
// usage, and "For more information, try '--help'."
func matchClap(out string, _ *shell.Command, _ bool) *Diagnosis {
	m := clapErrorRE.FindStringSubmatchIndex(out)
	if m == nil || !strings.Contains(out[m[1]:], "For more information, try '--help'") {
		return nil
	}
	msg := strings.TrimSpace(out[m[2]:m[3]])
	rest := out[m[1]:]
	if strings.HasSuffix(msg, ":") {
		// A lead-in: the lines after it, up to a blank line, complete it.
		var items []string
		for line := range strings.Lines(strings.TrimLeft(rest, "\r\n")) {
			if strings.TrimSpace(line) == "" {
				break
			}
			items = append(items, strings.TrimSpace(line))
		}
		msg += " " + strings.Join(items, " ")
		if strings.HasPrefix(msg, "the following required arguments were not provided:") {
			d := &Diagnosis{Missing: items}
			return clapDiagnosis(d, msg, out)
		}
	}
	d := &Diagnosis{}
	if strings.HasPrefix(msg, "unexpected argument ") || strings.HasPrefix(msg, "invalid value ") {
		// The flag is in the last quotes: '--count <COUNT>'.
		if q := quotedRE.FindAllStringSubmatch(msg, -1); q != nil {
			if f := strings.Fields(q[len(q)-1][1]); len(f) > 0 {
				d.BadFlags = flagWords(f[:1])
				if len(d.BadFlags) == 0 {
					d.BadFlags = f[:1]
				}
			}
		}
	}
	if t := clapTipRE.FindStringSubmatch(rest); t != nil {
		for _, q := range quotedRE.FindAllStringSubmatch(t[1], -1) {
			d.Suggestions = append(d.Suggestions, q[1])
		}
	}
	if p := clapPossibleRE.FindStringSubmatch(rest); p != nil {
		d.Choices = listWords(p[1])
	}
	return clapDiagnosis(d, msg, out)
}

func clapDiagnosis(d *Diagnosis, msg, out string) *Diagnosis {
	d.Category, d.Parser, d.Message = CLIUsage, "clap", termtext.Cut(msg, 200)
	d.ValidFlags = usageFlags(usageBlock(out, "Usage: "))
	return d
}

var (
	goFlagErrorRE = prefilter.MustCompile(`(?m)^(flag provided but not defined: (-\S+)|invalid value .* for flag (-\S+): .*|flag needs an argument: (-\S+))$`)
	goFlagUsageRE = prefilter.MustCompile(`(?m)^Usage of \S+:$`)
	goFlagDefRE   = prefilter.MustCompile(`(?m)^  (-[\w.-]+)`)
	goUsageRE     = prefilter.MustCompile(`(?m)^usage: go \w+ (.*)$`)
)

// matchGoFlag recognizes Go's flag package: "flag provided but not
// defined: -x" and the "Usage of PROG:" list of flags; or the go command's
// own "usage: go test …" line.
func matchGoFlag(out string, cmd *shell.Command, _ bool) *Diagnosis {
	m := goFlagErrorRE.FindStringSubmatch(out)
	if m == nil {
		return nil
	}
	d := &Diagnosis{Category: CLIUsage, Parser: "go-flag", Message: m[1]}
	if cmd != nil && cmd.Program() == "go" && !(builtByGoRun(cmd) && goFlagUsageRE.MatchString(out)) {
		d.Parser = "go" // go test and go vet parse their flags with it too
	}
	for _, f := range m[2:] {
		if f != "" {
			d.BadFlags = []string{f}
		}
	}
	if loc := goFlagUsageRE.FindStringIndex(out); loc != nil {
		for _, f := range goFlagDefRE.FindAllStringSubmatch(out[loc[1]:], -1) {
			if f[1] != "-h" && f[1] != "-help" && !slices.Contains(d.ValidFlags, f[1]) {
				d.ValidFlags = append(d.ValidFlags, f[1])
			}
		}
	} else if u := goUsageRE.FindStringSubmatch(out); u != nil {
		d.ValidFlags = usageFlags(u[1])
	}
	return d
}

// builtByGoRun reports whether cmd runs a program go run builds, whose
// flag errors are its own, not the go command's.
func builtByGoRun(cmd *shell.Command) bool {
	return cmd.Target == "go run" || !strings.HasPrefix(cmd.Target, "go ")
}

var hfUnusedRE = prefilter.MustCompile(`(?s)ValueError: (Some specified arguments are not used by the HfArgumentParser: \[[^\]]*\])`)

// matchHfArgparser recognizes Hugging Face's HfArgumentParser, which
// raises a ValueError listing the arguments it did not use; the traceback
// says where the parser was called.
func matchHfArgparser(out string, cmd *shell.Command, claimsSuccess bool) *Diagnosis {
	m := hfUnusedRE.FindStringSubmatch(out)
	if m == nil {
		return nil
	}
	msg := strings.Join(strings.Fields(m[1]), " ")
	d := &Diagnosis{Category: CLIUsage, Parser: "hfargparser", Message: termtext.Cut(msg, 200)}
	d.BadFlags = flagWords(listWords(msg[strings.IndexByte(msg, '['):]))
	if t := matchTraceback(out, cmd, false); t != nil && t.Exception != nil {
		d.Exception = t.Exception
		d.Exception.Message = termtext.Cut(msg, 200)
		d.Exception.Innermost = ""
	}
	return d
}

// usageBlock returns the usage text in out that starts with a line
// beginning with prefix, with the indented lines that continue it; "" if
// there is none. The last such block wins.
func usageBlock(out, prefix string) string {
	start := -1
	for i := strings.LastIndex(out, prefix); i >= 0; i = strings.LastIndex(out[:i], prefix) {
		if i == 0 || out[i-1] == '\n' {
			start = i
			break
		}
	}
	if start < 0 {
		return ""
	}
	rest := out[start:]
	if !strings.HasSuffix(prefix, " ") {
		// "usage: prog" must not be the start of "usage: program".
		if after := rest[len(prefix):]; after != "" && after[0] != ' ' && after[0] != '\n' && after[0] != '\r' {
			return ""
		}
	}
	end := 0
	for line := range strings.Lines(rest) {
		if end > 0 && line[0] != ' ' && line[0] != '\t' {
			break
		}
		end += len(line)
	}
	return rest[:end]
}

// usageFlags lists the flags a usage or help text names, in order, without
// the help flags every parser has. A cluster of letters, "[-46AaC]", is
// each of its letters.
func usageFlags(usage string) []string {
	var flags []string
	add := func(f string) {
		if f != "-h" && f != "--help" && !slices.Contains(flags, f) {
			flags = append(flags, f)
		}
	}
	for len(usage) > 0 {
		c := clusterRE.FindStringSubmatchIndex(usage)
		end := len(usage)
		if c != nil {
			end = c[0]
		}
		for _, m := range flagRE.FindAllStringSubmatch(usage[:end], -1) {
			add(m[1])
		}
		if c == nil {
			break
		}
		for _, letter := range usage[c[2]:c[3]] {
			add("-" + string(letter))
		}
		usage = usage[c[1]:]
	}
	return flags
}

// flagWords returns the flags among words, without attached values.
func flagWords(words []string) []string {
	var flags []string
	for _, w := range words {
		if shell.IsFlag(w) {
			flags = append(flags, strings.SplitN(w, "=", 2)[0])
		}
	}
	return flags
}

// cmdBannerRE matches all that cmd.exe prints when it starts as an
// interactive shell and reads no command: its banner and a prompt.
var cmdBannerRE = prefilter.MustCompile(`^\s*Microsoft Windows \[Version [\d.]+\]\r?\n\(c\) Microsoft Corporation\. All rights reserved\.\s*[A-Za-z]:\\[^\r\n>]*>\s*$`)

// matchCmdBanner recognizes cmd.exe run with /c from Git Bash, which turns
// "/c" into a path: cmd.exe starts, prints its banner and prompt, and the
// command never runs.
func matchCmdBanner(out string, cmd *shell.Command, _ bool) *Diagnosis {
	if cmd == nil || !cmdBannerRE.MatchString(out) {
		return nil
	}
	return &Diagnosis{Category: CLIUsage, Parser: "cmd.exe", BadFlags: []string{"/c"},
		Message: "cmd.exe printed its banner and prompt: the command after /c never ran (Git Bash turns /c into a path; write //c)"}
}

var (
	// usageRejectRE finds a program's own word that it rejected its
	// command line, where a usage text follows or precedes.
	usageRejectRE = prefilter.MustCompile(`(?mi)^(?:error: )?(?:unrecognized|invalid|incomplete|unknown|illegal|bad)(?: or incomplete)? (?:command line|command-line|option|argument|switch|parameter|syntax)s?\b.*$`)
	// windowsInvalidRE finds the error with which Windows console tools
	// (where, findstr, tasklist, schtasks, netsh) reject an argument.
	windowsInvalidRE = prefilter.MustCompile(`(?m)^ERROR: Invalid (?:argument|option|syntax|pattern|parameter|switch|value)\b.*$`)
	// busyboxUsageRE matches BusyBox printing an applet's usage instead
	// of running it.
	busyboxUsageRE = prefilter.MustCompile(`(?m)^BusyBox v[\d.]+ .*multi-call binary\.\s*\n\s*\nUsage: (\S+)`)
	anyUsageRE     = prefilter.MustCompile(`(?mi)^\s*usage:`)
	// helpHintRE finds a Windows tool's pointer to its help in place of
	// a usage: `Invalid Parameters -- try "/?" for help`.
	helpHintRE = prefilter.MustCompile(`(?mi)(?:try|type|use) "?(?:\S+ )?/\?"? for (?:help|usage|more information)`)
)

// matchUsageText recognizes a program that rejected its command line in
// its own words and printed its usage, or printed only its usage.
func matchUsageText(out string, _ *shell.Command, _ bool) *Diagnosis {
	if m := windowsInvalidRE.FindString(out); m != "" {
		return &Diagnosis{Category: CLIUsage, Parser: "windows", Message: termtext.Cut(strings.TrimSpace(m), 200)}
	}
	if m := usageRejectRE.FindString(out); m != "" && (anyUsageRE.MatchString(out) || helpHintRE.MatchString(out)) {
		return &Diagnosis{Category: CLIUsage, Parser: "usage", Message: termtext.Cut(strings.TrimSpace(m), 200)}
	}
	if m := busyboxUsageRE.FindStringSubmatch(out); m != nil {
		return &Diagnosis{Category: CLIUsage, Parser: "busybox", Message: m[1] + " printed its usage: BusyBox's " + m[1] + " does not take these arguments"}
	}
	return nil
}
