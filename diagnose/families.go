package diagnose

import (
	"slices"
	"strings"

	"github.com/retrace-dev/retrace/internal/prefilter"
	"github.com/retrace-dev/retrace/internal/termtext"
	"github.com/retrace-dev/retrace/shell"
)

// A usageFamily recognizes the usage errors of one command-line parser, or
// of one tool with a parser of its own, from its wording. Families whose
// output has a shape of its own (argparse, click and typer, clap, Go's
// flag package, HfArgumentParser) have matchers in cliusage.go; the rest
// are described here as data. Their cases are in testdata/failures.
type usageFamily struct {
	name string // the parser family, as reported in Diagnosis.Parser
	doc  string
	// errorRE finds the error. Its named groups, all optional, may repeat
	// with a number after the name (bad2, bad3):
	//   msg      the one-line message (else the whole match)
	//   prog     the program the message names, which must be the
	//            command's own when the call claims success
	//   bad      an offending flag or word, as the tool printed it
	//   short    an offending short option's letter
	//   flag     an option spec ("-r, --replicas"): its long form is bad
	//   mflag    an option spec whose long form is missing
	//   missing  required arguments (a list)
	//   name     required options named without dashes (a list)
	//   suggest  suggestions (a list); choices: the values accepted
	errorRE *prefilter.Regexp
	// also, when set, must match the output too.
	also *prefilter.Regexp
	// suggestRE finds the parser's own suggestions after the error: every
	// submatch of its first group.
	suggestRE *prefilter.Regexp
	// missingRE finds a required argument the output names after the
	// error.
	missingRE *prefilter.Regexp
	// flagsRE starts the usage or help text that lists the valid flags;
	// it is read up to the end of the output, or to the error.
	flagsRE *prefilter.Regexp
	// programs, when set, are the only commands this family's tool runs.
	programs []string
}

var usageFamilies = []usageFamily{
	{
		name:      "git",
		doc:       "git: an unknown subcommand with the most similar ones, an unknown option with git's usage",
		errorRE:   prefilter.MustCompile("(?m)^(?:(?P<msg>git: '(?P<bad>[^']+)' is not a git command\\. See 'git --help'\\.)|error: (?P<msg2>unknown (?:option|switch) [`'](?P<bad2>[^'`]+)')|(?P<msg3>fatal: unrecognized argument: (?P<bad3>\\S+))|(?P<msg4>fatal: ambiguous argument '(?P<bad4>[^']+)': unknown revision or path not in the working tree\\.)|(?P<msg5>fatal: bad revision '(?P<bad5>[^']+)'))$"),
		suggestRE: prefilter.MustCompile(`(?m)^\t(\S+)$`),
		flagsRE:   prefilter.MustCompile(`(?m)^usage: git `),
		programs:  []string{"git"},
	},
	{
		name:    "npm",
		doc:     "npm: an unknown command or a missing package script, with npm's suggestion",
		errorRE: prefilter.MustCompile(`(?m)^(?:npm (?:ERR!|error) )?(?P<msg>(?:Unknown command|Missing script): "(?P<bad>[^"]+)")$`),
		// "  npm test # Test a package": the suggestion is the word to type.
		suggestRE: prefilter.MustCompile(`(?m)^(?:npm (?:ERR!|error))?\s+npm (?:run )?([\w:.-]+) # `),
		programs:  []string{"npm", "pnpm"},
	},
	{
		name:      "cargo",
		doc:       "cargo: no such command, with the similar one",
		errorRE:   prefilter.MustCompile("(?m)^error: (?P<msg>no such (?:sub)?command: [`'](?P<bad>[^`']+)[`'])"),
		suggestRE: prefilter.MustCompile("(?i)(?:did you mean|a command with a similar name exists:) [`']([^`']+)[`']"),
		programs:  []string{"cargo"},
	},
	{
		name:     "docker",
		doc:      "docker: an unknown flag or command",
		errorRE:  prefilter.MustCompile(`(?m)^(?P<msg>unknown (?:shorthand )?flag: (?:'\w' in )?(?P<bad>\S+)|docker: unknown command: docker (?P<bad2>\S+)|docker: '(?P<bad3>[^']+)' is not a docker command\.)$`),
		also:     prefilter.MustCompile(`(?:See|Run) 'docker[^']*--help'`),
		programs: []string{"docker", "podman"},
	},
	{
		name:      "kubectl",
		doc:       "kubectl: an unknown flag or command, a missing argument",
		errorRE:   prefilter.MustCompile(`(?m)^(?:Error|error): (?P<msg>unknown (?:shorthand )?flag: (?:'\w' in )?(?P<bad>\S+)|unknown command "(?P<bad2>[^"]+)" for "kubectl.*"|expected '(?P<usage>[^']*)'\.)$`),
		suggestRE: prefilter.MustCompile(`(?m)^\t(\S+)$`),
		missingRE: prefilter.MustCompile(`(?m)^(.+) is a required argument for the \w+ command$`),
		programs:  []string{"kubectl", "oc"},
	},
	{
		name:     "go",
		doc:      "the go command: an unknown subcommand",
		errorRE:  prefilter.MustCompile(`(?m)^(?P<msg>go (?P<bad>\S+): unknown command|go: unknown subcommand "(?P<bad2>[^"]+)")$`),
		programs: []string{"go"},
	},
	{
		name:     "pip",
		doc:      "pip: an unknown command, or no such option",
		errorRE:  prefilter.MustCompile(`(?m)^(?:ERROR: )?(?P<msg>unknown command "(?P<bad>[^"]+)"(?:[ ,-]+maybe you meant "(?P<suggest>[^"]+)")?|no such option: (?P<bad2>\S+))$`),
		flagsRE:  prefilter.MustCompile(`(?m)^Usage:`),
		programs: []string{"pip", "pip3", "uv pip"},
	},
	{
		name:      "cobra",
		doc:       "Go's cobra and pflag: unknown flag or shorthand, invalid argument, required flags not set, unknown command",
		errorRE:   prefilter.MustCompile(`(?m)^Error: (?P<msg>unknown flag: (?P<bad>\S+)|unknown shorthand flag: '\w' in (?P<bad2>\S+)|unknown command "(?P<bad3>[^"]+)" for ".*"|required flag\(s\) (?P<name>.*) not set|flag needs an argument: (?P<bad4>\S+)|invalid argument "[^"]*" for "(?P<flag>[^"]+)" flag: .*)$`),
		suggestRE: prefilter.MustCompile(`(?m)^\t(\S+)$`),
		flagsRE:   prefilter.MustCompile(`(?m)^(?:Global )?Flags:$`),
	},
	{
		name:    "kong",
		doc:     "Go's kong: unknown flag with did-you-mean, missing flags, a value not among those allowed",
		errorRE: prefilter.MustCompile(`(?m)^(?P<prog>[\w.-]+): error: (?P<msg>unknown flag (?P<bad>--?[\w.-]+)(?:, did you mean (?:one of )?(?P<suggest>.*)\?)?|missing flags?: (?P<missing>.*)|(?P<bad2>--?[\w.-]+) must be one of (?P<choices>.*) but got .*|(?P<bad3>--?[\w.-]+): expected .* but got .*|expected one of (?P<choices2>.*)|expected (?P<missing2>"[^"]*")|unexpected argument (?P<bad4>\S+?)(?:, did you mean (?P<suggest2>.*)\?)?)$`),
		flagsRE: prefilter.MustCompile(`(?m)^Flags:$`),
	},
	{
		name:    "getopt",
		doc:     "GNU and BSD getopt: unrecognized, invalid or illegal option, option requiring an argument; coreutils' extra and missing operands",
		errorRE: prefilter.MustCompile(`(?m)^(?P<msg>(?:(?P<prog>[\w./-]+): )?(?:unrecognized option [‘'](?P<bad>--[\w-]+)(?:=[^’']*)?[’']|(?:invalid|illegal) option -- [‘']?(?P<short>\w)[’']?|option requires an argument -- [‘']?(?P<short2>\w)[’']?|option [‘'](?P<bad2>--[\w-]+)(?:=[^’']*)?[’'] requires an argument|option [‘'](?P<bad3>--[\w-]+)[’'] doesn't allow an argument|extra operand [‘'](?P<bad4>[^’']+)[’']|invalid (?:time interval|number|argument) [‘'](?P<bad5>[^’']+)[’'](?: for [‘'][^’']*[’'])?|missing (?:destination file )?operand(?: after [‘'][^’']*[’'])?))$`),
		flagsRE: prefilter.MustCompile(`(?mi)^usage:`),
	},
	{
		name:      "commander",
		doc:       "Node's commander: unknown option or command, missing argument, with its suggestion",
		errorRE:   prefilter.MustCompile(`(?m)^error: (?P<msg>unknown option '(?P<bad>[^']+)'|unknown command '(?P<bad2>[^']+)'|missing required argument '(?P<missing>[^']+)'|required option '(?P<mflag>[^']+)' not specified|option '(?P<flag2>[^']+)' argument missing|too many arguments(?: for '[^']*')?\. Expected .*)$`),
		suggestRE: prefilter.MustCompile(`\(Did you mean ([^?]+)\?\)`),
	},
	{
		name:    "yargs",
		doc:     "Node's yargs: unknown arguments, missing required arguments, invalid values",
		errorRE: prefilter.MustCompile(`(?m)^(?P<msg>Unknown arguments?: (?P<bad>.+)|Missing required arguments?: (?P<name>.+)|Invalid values?:\n\s+Argument: (?P<bad2>[\w-]+), Given: .*, Choices: (?P<choices>.*)|Not enough non-option arguments: .*)$`),
		flagsRE: prefilter.MustCompile(`(?m)^Options:$`),
	},
	{
		name:    "absl",
		doc:     "absl and gflags: unknown command line flag, a flag without a required value or with a bad one",
		errorRE: prefilter.MustCompile(`(?m)^(?:FATAL Flags parsing error: |ERROR: )(?P<msg>[Uu]nknown command line flag '(?P<bad>[^']+)'(?:\. Did you mean: (?P<suggest>[\w, -]+?) \?)?.*|flag --(?P<name>[\w-]+)=None: Flag --[\w-]+ must have a value other than None\.|flag (?P<bad2>--[\w-]+)=[^:]*: value should be one of <(?P<choices>[^>]*)>|flag (?P<bad3>--[\w-]+)=[^:]*: .*)$`),
	},
	{
		name:    "fire",
		doc:     "python-fire: an argument it could not consume, a required argument with no value",
		errorRE: prefilter.MustCompile(`(?m)^ERROR: (?P<msg>Could not consume arg: (?P<bad>\S+)|The function received no value for the required argument: (?P<missing>\S+))$`),
		flagsRE: prefilter.MustCompile(`(?m)^Usage:`),
	},
}

var usageLineRE = prefilter.MustCompile(`(?m)^(?:usage|Usage): `)

// match applies a family to out, the output of cmd.
func (f *usageFamily) match(out string, cmd *shell.Command, claimsSuccess bool) *Diagnosis {
	if f.programs != nil && cmd != nil && !slices.Contains(f.programs, cmd.Program()) && !slices.Contains(f.programs, cmd.Target) &&
		!slices.ContainsFunc(f.programs, func(p string) bool { return slices.Contains(cmd.Filters, p) }) {
		return nil
	}
	m := f.errorRE.FindStringSubmatchIndex(out)
	if m == nil || (f.also != nil && !f.also.MatchString(out)) {
		return nil
	}
	group := func(prefix string) []string {
		var vals []string
		for i, name := range f.errorRE.SubexpNames() {
			if name != "" && strings.TrimRight(name, "0123456789") == prefix && m[2*i] >= 0 {
				vals = append(vals, out[m[2*i]:m[2*i+1]])
			}
		}
		return vals
	}
	prog := group("prog")
	if len(prog) > 0 {
		if claimsSuccess && !ownsMessage(cmd, prog[0]) {
			return nil // another program's error in a run that went on
		}
	} else if f.name == "getopt" && !usageLineRE.MatchString(out) {
		return nil // without its program's name, only with its usage
	}
	d := &Diagnosis{Category: CLIUsage, Parser: f.name, Message: out[m[0]:m[1]]}
	if msg := group("msg"); len(msg) > 0 {
		d.Message = msg[0]
	}
	d.Message = termtext.Cut(strings.Join(strings.Fields(d.Message), " "), 200)
	for _, b := range group("bad") {
		d.BadFlags = append(d.BadFlags, listWords(b)...)
	}
	for _, s := range group("short") {
		d.BadFlags = append(d.BadFlags, "-"+s)
	}
	for _, s := range group("flag") {
		d.BadFlags = append(d.BadFlags, longFlag(s))
	}
	for _, s := range group("mflag") {
		d.Missing = append(d.Missing, longFlag(s))
	}
	for _, x := range group("missing") {
		d.Missing = append(d.Missing, missingWords(x)...)
	}
	for _, x := range group("name") {
		for _, n := range listWords(x) {
			d.Missing = append(d.Missing, "--"+strings.TrimLeft(n, "-"))
		}
	}
	for _, x := range group("choices") {
		d.Choices = append(d.Choices, choiceWords(x)...)
	}
	for _, x := range group("suggest") {
		d.Suggestions = append(d.Suggestions, listWords(x)...)
	}
	if f.suggestRE != nil {
		for _, s := range f.suggestRE.FindAllStringSubmatch(out[m[1]:], -1) {
			d.Suggestions = append(d.Suggestions, listWords(s[1])...)
		}
	}
	if f.missingRE != nil {
		if mm := f.missingRE.FindStringSubmatch(out[m[1]:]); mm != nil {
			d.Missing = append(d.Missing, mm[1])
		}
	}
	for _, u := range group("usage") {
		d.ValidFlags = usageFlags(u)
	}
	if f.flagsRE != nil {
		if loc := f.flagsRE.FindStringIndex(out); loc != nil {
			text := out[loc[0]:]
			if loc[0] < m[0] {
				text = out[loc[0]:m[0]]
			}
			d.ValidFlags = usageFlags(text)
		}
	}
	d.BadFlags = asTyped(d.BadFlags, cmd)
	d.Suggestions = asFlagsLike(d.Suggestions, d.BadFlags)
	return d
}

// ownsMessage reports whether the program a message names is the
// command's own, or one of its pipeline's.
func ownsMessage(cmd *shell.Command, prog string) bool {
	if cmd == nil {
		return true
	}
	prog = shell.ProgramName(prog)
	return prog == cmd.Program() || prog == cmd.Target || strings.HasPrefix(cmd.Target, prog+" ") ||
		slices.Contains(cmd.Filters, prog)
}

// asTyped writes each rejected word as the command typed it: "forse" that
// git quotes is the "--forse" on the command line, "conns" of yargs is
// "--conns".
func asTyped(bad []string, cmd *shell.Command) []string {
	if cmd == nil {
		return bad
	}
	for i, b := range bad {
		if strings.HasPrefix(b, "-") {
			continue
		}
		for _, a := range cmd.Args {
			name, _, _ := strings.Cut(a, "=")
			if name == "--"+b || name == "-"+b {
				bad[i] = name
				break
			}
		}
	}
	return bad
}

// asFlagsLike writes bare suggestions as flags when what was rejected was
// a flag: absl suggests "num_steps" for "--num_step".
func asFlagsLike(suggestions, bad []string) []string {
	if len(bad) == 0 || !strings.HasPrefix(bad[0], "--") {
		return suggestions
	}
	for i, s := range suggestions {
		if !strings.HasPrefix(s, "-") && strings.ContainsAny(s, "_-") {
			suggestions[i] = "--" + s
		}
	}
	return suggestions
}

// longFlag returns the long form of an option spec: "--replicas" for
// "-r, --replicas", "--env" for "-e, --env <name>".
func longFlag(spec string) string {
	var last string
	for _, w := range strings.FieldsFunc(spec, func(r rune) bool { return r == ',' || r == ' ' }) {
		if strings.HasPrefix(w, "-") {
			last = w
		}
	}
	return last
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

// missingWords reads required arguments: "--host=STRING" is "--host",
// `"<dsn>"` is "<dsn>".
func missingWords(s string) []string {
	var out []string
	for _, w := range listWords(s) {
		name, _, _ := strings.Cut(w, "=")
		out = append(out, name)
	}
	return out
}

// choiceWords reads the values an option accepts: `"dev","prod"`,
// "train|eval", `"http", "grpc"`.
func choiceWords(s string) []string {
	return listWords(strings.ReplaceAll(s, "|", ","))
}
