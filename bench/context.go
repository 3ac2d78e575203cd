package bench

import (
	"regexp"
	"strings"

	"github.com/retrace-dev/retrace/shell"
)

// A benchmark's context starts with the options of the command that
// printed it: every option that takes a value, by its name without dashes
// and with its value as written (after the shell's unquoting). Options
// without a value, URLs, and what follows "--" (the arguments of another
// program) are not context; neither are the options of wrappers (ssh,
// docker exec, timeout, env) nor of pipe filters, which shell.Parse
// peels.

// An optionSpec says how to read the options of one tool where the
// generic reading goes wrong: the options that take no value although a
// word follows them, and those that are no parameter of what is measured.
type optionSpec struct {
	bools, skip string // space-separated options, dashes included
}

// toolOptions holds the option specs, by target or program.
var toolOptions = map[string]optionSpec{
	"go test": {bools: "-benchmem -v -race -short -json -cover -failfast -x -n -a -trimpath -msan -asan"},
	"hyperfine": {
		bools: "-N -i --ignore-failure --show-output",
		// -P and -L scan parameters whose values are in each command.
		skip: "-P --parameter-scan -L --parameter-list -n --command-name -p --prepare -c --cleanup " +
			"-s --setup -S --shell --export-json --export-markdown --export-csv --export-asciidoc " +
			"--export-orgmode --output --style",
	},
	"pytest": {bools: "-q -v -s -x -vv -qq -l --benchmark-only --benchmark-disable --benchmark-skip"},
	"wrk":    {skip: "-s --script -H --header"},
	"ab":     {skip: "-H -p -T -C -A -P -X"},
	"hey":    {skip: "-H -d -D -T -A -x -a"},
	"iperf3": {bools: "-u -R --reverse --bidir -J --json -V --verbose -d --debug -Z --zerocopy"},
	"fio":    {skip: "--output --output-format"},
}

// secretRE matches the names of options whose values must not be shown.
var secretRE = regexp.MustCompile(`(?:^|-)(?:password|passwd|pass|secret|api-?key|access-key|token|auth|credentials?|cookie)$`)

// commandContext returns the options of a command as context.
func commandContext(cmd *shell.Command) map[string]string {
	spec, ok := toolOptions[cmd.Target]
	if !ok {
		spec = toolOptions[cmd.Program()]
	}
	bools, skip := strings.Fields(spec.bools), strings.Fields(spec.skip)
	has := func(list []string, name string, long bool) bool {
		for _, o := range list {
			if o == "-"+name || long && o == "--"+name {
				return true
			}
		}
		return false
	}
	ctx := map[string]string{}
	args := cmd.Args
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if !shell.IsFlag(a) {
			continue
		}
		var name, value string
		hasValue, long, short := false, strings.HasPrefix(a, "--"), false
		switch {
		case long:
			name, value, hasValue = strings.Cut(a[2:], "=")
		case strings.Contains(a, "="):
			name, value, hasValue = strings.Cut(a[1:], "=")
		case len(a) > 2 && isASCIILetter(a[1]) && !isASCIILetter(a[2]):
			// An attached value: -t2, -c32, -d5s, -R2000.
			name, value, hasValue = a[1:2], a[2:], true
		default:
			name = a[1:]
			short = len(name) == 1
		}
		if !hasValue {
			if has(bools, name, long) || i+1 >= len(args) || shell.IsFlag(args[i+1]) || args[i+1] == "--" {
				continue
			}
			if short && looksLikeFile(args[i+1]) {
				continue // `gzip -c data.bin`, `pytest -q test_x.py`: an operand
			}
			i++
			value = args[i]
			// A list of numbers: --concurrency 1 2 4 8.
			if isNumber(value) {
				for i+1 < len(args) && isNumber(args[i+1]) {
					i++
					value += " " + args[i]
				}
			}
		}
		key := contextKey(name)
		if key == "" || value == "" || has(skip, name, long) || strings.Contains(value, "://") || secretKey(key) {
			continue
		}
		ctx[key] = value
	}
	return ctx
}

// fileRE matches words that name files: "data.bin", "./parser", "~/x".
var fileRE = regexp.MustCompile(`^(?:\.{0,2}/|~/)|^[\w.-]*[A-Za-z_][\w-]*\.[A-Za-z][A-Za-z0-9]{0,4}$`)

// secretKey reports whether an option's value is a credential: --password,
// --api-key, --hf-token; not --max-token.
func secretKey(key string) bool {
	for _, p := range []string{"max-", "min-", "num-"} {
		if strings.HasPrefix(key, p) {
			return false
		}
	}
	return secretRE.MatchString(key)
}

func looksLikeFile(s string) bool { return fileRE.MatchString(s) }

func isASCIILetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }
