package analyzer

import (
	"regexp"
	"slices"
	"strings"
)

// A usageFamily recognizes the usage errors of one command-line parser, or
// of one tool with a parser of its own, from its wording. Families whose
// output has a shape of its own (argparse, click, clap, Go's flag package)
// have matchers in cliusage.go; the rest are described here as data.
type usageFamily struct {
	name string // the parser family, as reported in Diagnosis.Parser
	doc  string
	// errorRE finds the error. Its named groups, all optional: msg (the
	// one-line message; else the whole match), bad (an offending flag or
	// word), missing, suggest and choices (lists, separated by commas or
	// spaces).
	errorRE *regexp.Regexp
	// also, when set, must match the output too: a usage line, a "See
	// 'prog --help'" hint.
	also *regexp.Regexp
	// suggestRE finds the parser's own suggestions anywhere in the output:
	// every submatch of its first group.
	suggestRE *regexp.Regexp
	// flagsRE, when set, starts the text that lists the valid flags: a
	// usage or "Flags:" block, read up to the first blank line after it.
	flagsRE *regexp.Regexp
	// programs, when set, are the only commands this family's tool runs.
	programs []string
}

var usageFamilies = []usageFamily{
	{
		name:      "git",
		doc:       "git: an unknown subcommand, with the most similar commands",
		errorRE:   regexp.MustCompile(`(?m)^git: '(?P<bad>[^']+)' is not a git command\. See 'git --help'\.$`),
		suggestRE: regexp.MustCompile(`(?m)^\t(\S+)$`),
	},
	{
		name:      "git",
		doc:       "git's option parser: unknown option, with its usage",
		errorRE:   regexp.MustCompile("(?m)^(?P<msg>error: (?:unknown option|unknown switch) [`'](?P<bad>[^'`]+)')$"),
		also:      regexp.MustCompile(`(?m)^usage: git `),
		suggestRE: regexp.MustCompile("(?m)^error: did you mean [`'](--[^'`]+)'"),
		flagsRE:   regexp.MustCompile(`(?m)^usage: git `),
		programs:  []string{"git"},
	},
	{
		name:      "npm",
		doc:       "npm: an unknown command or a missing package script, with npm's suggestion",
		errorRE:   regexp.MustCompile(`(?m)^(?:npm (?:ERR!|error) )?(?P<msg>(?:Unknown command|Missing script): "(?P<bad>[^"]+)")$`),
		suggestRE: regexp.MustCompile(`(?m)^(?:npm (?:ERR!|error))?\s+(npm (?:run )?[\w:.-]+)(?:\s+#.*)?$`),
		programs:  []string{"npm", "npx", "pnpm"},
	},
	{
		name:      "cargo",
		doc:       "cargo: no such command, with the similar one",
		errorRE:   regexp.MustCompile("(?mi)^error: no such (?:sub)?command: [`'](?P<bad>[^`']+)[`']"),
		suggestRE: regexp.MustCompile("(?i)(?:did you mean|a command with a similar name exists:) [`']([^`']+)[`']"),
	},
	{
		name:     "docker",
		doc:      "docker: an unknown flag or command",
		errorRE:  regexp.MustCompile(`(?m)^(?:docker: )?(?P<msg>unknown (?:flag|shorthand flag): (?P<bad>\S+).*|'(?P<bad2>[^']+)' is not a docker command\.)$`),
		also:     regexp.MustCompile(`See 'docker [^']*--help'`),
		programs: []string{"docker", "podman"},
	},
	{
		name:      "kubectl",
		doc:       "kubectl: an unknown flag or command",
		errorRE:   regexp.MustCompile(`(?m)^error: (?P<msg>unknown (?:flag|shorthand flag): (?P<bad>\S+).*|unknown command "(?P<bad2>[^"]+)" for "kubectl.*")$`),
		suggestRE: regexp.MustCompile(`(?m)^\t(\S+)$`),
		programs:  []string{"kubectl", "oc"},
	},
	{
		name:     "go",
		doc:      "the go command: an unknown subcommand",
		errorRE:  regexp.MustCompile(`(?m)^go(?::| \w+:) (?P<msg>unknown (?:sub)?command "?(?P<bad>[^"\s]+)"?)$`),
		programs: []string{"go"},
	},
	{
		name:     "pip",
		doc:      "pip: an unknown command, or no such option",
		errorRE:  regexp.MustCompile(`(?m)^(?:ERROR: )?(?P<msg>unknown command "(?P<bad>[^"]+)"(?:[,-] maybe you meant "(?P<suggest>[^"]+)")?|no such option: (?P<bad2>\S+))$`),
		programs: []string{"pip", "pip3", "uv pip"},
	},
	{
		name:      "cobra",
		doc:       "Go's cobra and pflag: unknown flag, unknown shorthand, unknown command, required flags not set",
		errorRE:   regexp.MustCompile(`(?m)^Error: (?P<msg>unknown flag: (?P<bad>\S+)|unknown shorthand flag: '\w' in (?P<bad2>\S+)|unknown command "(?P<bad3>[^"]+)" for ".*"|required flag\(s\) (?P<missing>.*) not set|flag needs an argument: (?P<bad4>.*)|invalid argument "[^"]*" for "(?P<bad5>[^"]+)" flag: .*)$`),
		suggestRE: regexp.MustCompile(`(?m)^\t(\S+)$`),
		flagsRE:   regexp.MustCompile(`(?m)^(?:Global )?Flags:$`),
	},
	{
		name:    "kong",
		doc:     "Go's kong: unknown flag with did-you-mean, missing flags, a value not among the allowed",
		errorRE: regexp.MustCompile(`(?m)^\S+: error: (?P<msg>unknown flag (?P<bad>--?[\w.-]+)(?:, did you mean "(?P<suggest>[^"]+)"\?)?|missing flags?: (?P<missing>.*)|(?P<bad2>--?[\w.-]+)(?:=\w+)? must be one of (?P<choices>.*) but got .*|expected one of (?P<choices2>.*)|unexpected argument (?P<bad3>\S+))$`),
	},
	{
		name:    "getopt",
		doc:     "GNU and BSD getopt: unrecognized, invalid or illegal option, option requiring an argument",
		errorRE: regexp.MustCompile(`(?m)^[\w./-]+: (?P<msg>unrecognized option [‘'` + "`" + `](?P<bad>[^’'` + "`" + `]+)[’']|(?:invalid|illegal) option -- [‘']?(?P<bad2>\w)[’']?|option requires an argument -- [‘']?(?P<bad3>\w)[’']?|option [‘'](?P<bad4>--[\w-]+)[’'] requires an argument|option [‘'](?P<bad5>--[\w-]+)[’'] doesn't allow an argument)$`),
		flagsRE: regexp.MustCompile(`(?mi)^usage:`),
	},
	{
		name:      "commander",
		doc:       "Node's commander: unknown option or command, missing argument, with its suggestion",
		errorRE:   regexp.MustCompile(`(?m)^error: (?P<msg>unknown option '(?P<bad>[^']+)'|unknown command '(?P<bad2>[^']+)'|missing required argument '(?P<missing>[^']+)'|required option '(?P<missing2>[^']+)' not specified|option '(?P<bad3>[^']+)' argument missing)$`),
		suggestRE: regexp.MustCompile(`\(Did you mean ([^?]+)\?\)`),
	},
	{
		name:    "yargs",
		doc:     "Node's yargs: unknown arguments, missing required arguments, invalid values",
		errorRE: regexp.MustCompile(`(?m)^(?P<msg>Unknown arguments?: (?P<bad>.+)|Missing required arguments?: (?P<missing>.+)|Invalid values?:|Not enough non-option arguments: .*)$`),
		flagsRE: regexp.MustCompile(`(?m)^Options:$`),
	},
	{
		name:      "absl",
		doc:       "absl and gflags: unknown command line flag",
		errorRE:   regexp.MustCompile(`(?m)^(?:FATAL Flags parsing error: |ERROR: )(?P<msg>[Uu]nknown command line flag '(?P<bad>[^']+)'.*)$`),
		suggestRE: regexp.MustCompile(`Did you mean: ([\w, -]+?) ?\?`),
	},
	{
		name:    "hfargparser",
		doc:     "Hugging Face's HfArgumentParser: arguments not used",
		errorRE: regexp.MustCompile(`(?m)^ValueError: (?P<msg>Some specified arguments are not used by the HfArgumentParser: \[(?P<bad>.*)\])$`),
	},
	{
		name:    "fire",
		doc:     "python-fire: an argument it could not consume",
		errorRE: regexp.MustCompile(`(?m)^ERROR: (?P<msg>Could not consume arg: (?P<bad>\S+))$`),
		flagsRE: regexp.MustCompile(`(?m)^Usage:`),
	},
}

// match applies a family to out.
func (f *usageFamily) match(out string, cmd *Command) *Diagnosis {
	if f.programs != nil && cmd != nil && !slices.Contains(f.programs, cmd.Program()) && !slices.Contains(f.programs, cmd.Target) {
		return nil
	}
	m := f.errorRE.FindStringSubmatchIndex(out)
	if m == nil || (f.also != nil && !f.also.MatchString(out)) {
		return nil
	}
	group := func(prefix string) []string {
		var vals []string
		for i, name := range f.errorRE.SubexpNames() {
			if name != "" && strings.HasPrefix(name, prefix) && m[2*i] >= 0 {
				vals = append(vals, out[m[2*i]:m[2*i+1]])
			}
		}
		return vals
	}
	d := &Diagnosis{Category: CLIUsage, Parser: f.name, Message: out[m[0]:m[1]]}
	if msg := group("msg"); len(msg) > 0 {
		d.Message = msg[0]
	}
	d.Message = cut(strings.TrimSpace(d.Message), 200)
	for _, b := range group("bad") {
		d.BadFlags = append(d.BadFlags, listWords(b)...)
	}
	for _, x := range group("missing") {
		d.Missing = append(d.Missing, listWords(x)...)
	}
	for _, x := range group("choices") {
		d.Choices = append(d.Choices, listWords(x)...)
	}
	for _, x := range group("suggest") {
		d.Suggestions = append(d.Suggestions, listWords(x)...)
	}
	if f.suggestRE != nil {
		for _, s := range f.suggestRE.FindAllStringSubmatch(out[m[1]:], -1) {
			d.Suggestions = append(d.Suggestions, listWords(s[1])...)
		}
	}
	if f.flagsRE != nil {
		if loc := f.flagsRE.FindStringIndex(out); loc != nil {
			d.ValidFlags = usageFlags(block(out[loc[0]:]))
		}
	}
	return d
}

// listWords splits a list as parsers print it: "a, b", "'a' 'b'",
// "[`--x`, 'y']", "\"a\", \"b\"".
func listWords(s string) []string {
	var words []string
	for w := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == ',' || r == ' ' || r == '[' || r == ']' }) {
		w = strings.Trim(w, `'"`+"`‘’“”")
		if w != "" && w != "and" && w != "or" {
			words = append(words, w)
		}
	}
	return words
}

// block returns text up to its first blank line after the first line.
func block(text string) string {
	if i := strings.Index(text, "\n\n"); i >= 0 {
		return text[:i]
	}
	return text
}
