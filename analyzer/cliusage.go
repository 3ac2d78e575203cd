package analyzer

import (
	"regexp"
	"slices"
	"strings"
)

// This file recognizes the usage errors of command-line parsers. Each
// matcher needs the parser's whole shape, its usage line and its error line,
// so that text merely mentioning "error:" is not taken for one.

var (
	argparseErrorRE  = regexp.MustCompile(`(?m)^(.+?): error: (.+)$`)
	argparseArgRE    = regexp.MustCompile(`^argument (\S+?)(?:/\S+)?: (.*)$`)
	argparseChoiceRE = regexp.MustCompile(`invalid choice: '(.*?)'(?:, maybe you meant '(.*?)'\?)? \(choose from (.*)\)`)
	quotedRE         = regexp.MustCompile(`'([^']*)'`)
	flagRE           = regexp.MustCompile(`(?:^|[\s\[(|,{])(--?[A-Za-z0-9][\w.-]*)`)
)

// matchArgparse recognizes Python argparse: a "usage: PROG …" block
// followed by "PROG: error: MESSAGE".
func matchArgparse(out string, _ *Command, _ bool) *Diagnosis {
	for _, m := range argparseErrorRE.FindAllStringSubmatchIndex(out, -1) {
		prog, msg := out[m[2]:m[3]], strings.TrimSpace(out[m[4]:m[5]])
		usage := usageBlock(out[:m[0]], "usage: "+prog)
		if usage == "" && (!strings.HasSuffix(prog, ".py") || strings.ContainsAny(prog, " \t")) {
			continue // without its usage line, only "script.py: error:" will do
		}
		d := &Diagnosis{Category: CLIUsage, Parser: "argparse", Message: cut(msg, 200)}
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
	if c := argparseChoiceRE.FindStringSubmatch(m[2]); c != nil {
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
	clickUsageRE = regexp.MustCompile(`(?m)^Usage: \S+`)
	clickErrorRE = regexp.MustCompile(`(?m)^Error: (.+)$`)
	clickMeantRE = regexp.MustCompile(`(?:Did you mean|Possible options:) ([^)?]+)`)
)

// matchClick recognizes Python click and typer: "Usage: PROG …", then
// "Error: MESSAGE".
func matchClick(out string, _ *Command, _ bool) *Diagnosis {
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

var typerBoxRE = regexp.MustCompile(`(?m)^╭─+ Error ─+╮$`)

// matchTyper recognizes typer's usage errors, which click prints in a box:
// "Usage: PROG …", then "╭─ Error ─╮ │ MESSAGE │ ╰─╯".
func matchTyper(out string, _ *Command, _ bool) *Diagnosis {
	loc := typerBoxRE.FindStringIndex(out)
	if loc == nil || !clickUsageRE.MatchString(out[:loc[0]]) {
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

// clickDiagnosis reads the details of a click error message.
func clickDiagnosis(parser, msg string) *Diagnosis {
	d := &Diagnosis{Category: CLIUsage, Parser: parser, Message: cut(msg, 200)}
	switch {
	case strings.HasPrefix(msg, "No such option: "):
		d.BadFlags = flagWords(strings.Fields(strings.TrimPrefix(msg, "No such option: "))[:1])
	case strings.HasPrefix(msg, "Missing option "):
		if q := quotedRE.FindStringSubmatch(msg); q != nil {
			d.Missing = []string{q[1]}
		}
	case strings.HasPrefix(msg, "Invalid value for "):
		if q := quotedRE.FindStringSubmatch(msg); q != nil {
			d.BadFlags = flagWords(strings.Fields(q[1])[:1])
		}
	case strings.HasPrefix(msg, "Got unexpected extra argument"):
		if i, j := strings.IndexByte(msg, '('), strings.LastIndexByte(msg, ')'); i >= 0 && j > i {
			d.BadFlags = strings.Fields(msg[i+1 : j])
		}
	case strings.HasPrefix(msg, "No such command "):
		if q := quotedRE.FindStringSubmatch(msg); q != nil {
			d.BadFlags = []string{q[1]}
		}
	}
	if s := clickMeantRE.FindStringSubmatch(msg); s != nil {
		d.Suggestions = listWords(s[1])
	}
	return d
}

var (
	clapErrorRE = regexp.MustCompile(`(?m)^error: (.+)$`)
	clapTipRE   = regexp.MustCompile(`(?m)^\s*tip: (?:a similar|some similar) \w+ exists?: (.+)$`)
)

// matchClap recognizes Rust's clap: "error: MESSAGE", an optional "tip:",
// then "Usage: PROG …" and "For more information, try '--help'."
func matchClap(out string, _ *Command, _ bool) *Diagnosis {
	m := clapErrorRE.FindStringSubmatchIndex(out)
	if m == nil || !strings.Contains(out[m[1]:], "Usage: ") || !strings.Contains(out[m[1]:], "For more information, try") {
		return nil
	}
	msg := strings.TrimSpace(out[m[2]:m[3]])
	d := &Diagnosis{Category: CLIUsage, Parser: "clap", Message: cut(msg, 200)}
	d.ValidFlags = usageFlags(usageBlock(out, "Usage: "))
	if strings.HasPrefix(msg, "unexpected argument ") || strings.HasPrefix(msg, "invalid value ") {
		// The flag is in the last quotes: '--count <COUNT>'.
		if q := quotedRE.FindAllStringSubmatch(msg, -1); q != nil {
			if f := strings.Fields(q[len(q)-1][1]); len(f) > 0 {
				d.BadFlags = flagWords(f[:1])
			}
		}
	}
	if t := clapTipRE.FindStringSubmatch(out); t != nil {
		for _, q := range quotedRE.FindAllStringSubmatch(t[1], -1) {
			d.Suggestions = append(d.Suggestions, q[1])
		}
	}
	return d
}

var (
	goFlagErrorRE = regexp.MustCompile(`(?m)^(flag provided but not defined: (-\S+)|invalid value .* for flag (-\S+): .*|flag needs an argument: (-\S+))$`)
	goFlagUsageRE = regexp.MustCompile(`(?m)^Usage of \S+:$`)
	goFlagDefRE   = regexp.MustCompile(`(?m)^  (-[\w.-]+)`)
)

// matchGoFlag recognizes Go's flag package: "flag provided but not
// defined: -x" and the "Usage of PROG:" list of flags.
func matchGoFlag(out string, cmd *Command, _ bool) *Diagnosis {
	m := goFlagErrorRE.FindStringSubmatch(out)
	if m == nil {
		return nil
	}
	d := &Diagnosis{Category: CLIUsage, Parser: "go-flag", Message: m[1]}
	if cmd != nil && cmd.Program() == "go" {
		d.Parser = "go" // go test and go vet parse their flags with it too
	}
	for _, f := range m[2:] {
		if f != "" {
			d.BadFlags = []string{f}
		}
	}
	if loc := goFlagUsageRE.FindStringIndex(out); loc != nil {
		for _, f := range goFlagDefRE.FindAllStringSubmatch(out[loc[1]:], -1) {
			if !slices.Contains(d.ValidFlags, f[1]) {
				d.ValidFlags = append(d.ValidFlags, f[1])
			}
		}
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

// usageFlags lists the flags a usage text names, in order, without the
// help flags every parser has.
func usageFlags(usage string) []string {
	var flags []string
	for _, m := range flagRE.FindAllStringSubmatch(usage, -1) {
		f := m[1]
		if f == "-h" || f == "--help" || slices.Contains(flags, f) {
			continue
		}
		flags = append(flags, f)
	}
	return flags
}

// flagWords returns the flags among words, without attached values.
func flagWords(words []string) []string {
	var flags []string
	for _, w := range words {
		if strings.HasPrefix(w, "-") && len(w) > 1 && !isNumber(w) {
			flags = append(flags, strings.SplitN(w, "=", 2)[0])
		}
	}
	return flags
}
