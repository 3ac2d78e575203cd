package analyzer

import (
	"maps"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"

	"github.com/retrace-dev/retrace/internal/termtext"
	"github.com/retrace-dev/retrace/parser"
	"github.com/retrace-dev/retrace/shell"
)

// A Diff says how a fix's arguments differ from those of the failed call
// before it.
type Diff struct {
	Renamed []Rename `json:"renamed"`
	Removed []string `json:"removed"` // flags with their values, and positional words
	Added   []string `json:"added"`
	Changed []Change `json:"changed"` // flags kept with another value
	// Wrapper is set when the fix ran through other wrappers than the
	// failure: cmd.exe /c, then powershell.exe -Command.
	Wrapper *WrapperChange `json:"wrapper,omitempty"`
	// Input is set when the text the command read on its standard input
	// changed: the script of `python3 - <<'EOF'`.
	Input *InputChange `json:"input,omitempty"`
}

// An InputChange says how the text a command read on its standard input
// changed: the lines of the failed call's that the fix's lacks and the
// fix's new lines, each trimmed of the spaces around it, counted, and
// listed up to maxInputLines of each.
type InputChange struct {
	RemovedLines int      `json:"removed_lines"`
	AddedLines   int      `json:"added_lines"`
	Removed      []string `json:"removed,omitempty"`
	Added        []string `json:"added,omitempty"`
}

// maxInputLines bounds the lines an InputChange lists of each kind.
const maxInputLines = 10

// A WrapperChange says which wrappers a command ran through before and
// after: each list of Command.Wrappers joined by ", ", "" for none.
type WrapperChange struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// A Rename is a flag replaced by another: --num-prompts 5 by --num-runs 5.
type Rename struct {
	From      string   `json:"from"`
	To        string   `json:"to"`
	FromValue string   `json:"from_value,omitzero"`
	ToValue   string   `json:"to_value,omitzero"`
	By        RenameBy `json:"by"` // how the two were matched
}

// A RenameBy says how a removed flag was matched with an added one.
type RenameBy string

// The ways of matching a rename, in the order they are tried.
const (
	RenameByValue       RenameBy = "value"       // their values are equal
	RenameByContainment RenameBy = "containment" // one value holds the other: --port 30000, --server-url http://localhost:30000
	RenameByName        RenameBy = "name"        // their names are alike
)

// A Change is a flag whose value changed.
type Change struct {
	Flag string `json:"flag"`
	From string `json:"from"`
	To   string `json:"to"`
}

// Empty reports whether the diff found no difference.
func (d *Diff) Empty() bool {
	return len(d.Renamed) == 0 && len(d.Removed) == 0 && len(d.Added) == 0 && len(d.Changed) == 0 && d.Wrapper == nil &&
		d.Input == nil
}

// An option is a flag and the value that follows it, if any.
type option struct {
	name, value string
}

func (o option) String() string {
	if o.value == "" {
		return o.name
	}
	return o.name + " " + o.value
}

// splitArgs separates a command's flags from its positional words. A flag
// takes the word after it as its value unless that word is a flag too;
// when greedy, it takes every word up to the next flag, as --concurrency
// 1 2 4 does, and the values are joined with spaces.
func splitArgs(args []string, greedy bool) (opts []option, words []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return opts, append(words, args[i+1:]...)
		case !shell.IsFlag(a):
			words = append(words, a)
		case strings.Contains(a, "="):
			name, value, _ := strings.Cut(a, "=")
			opts = append(opts, option{name, value})
		default:
			o := option{name: a}
			for i+1 < len(args) && !shell.IsFlag(args[i+1]) && args[i+1] != "--" {
				o.value = strings.TrimSpace(o.value + " " + args[i+1])
				i++
				if !greedy {
					break
				}
			}
			opts = append(opts, o)
		}
	}
	return opts, words
}

// flagName returns the flag of a Removed or Added entry, or "" for a
// positional word.
func flagName(entry string) string {
	name, _, _ := strings.Cut(entry, " ")
	if !shell.IsFlag(name) {
		return ""
	}
	return name
}

// newDiff returns an empty Diff.
func newDiff() *Diff {
	return &Diff{Renamed: []Rename{}, Removed: []string{}, Added: []string{}, Changed: []Change{}}
}

// diffCommands compares the arguments, environment and wrappers of a
// failed command and its fix.
func diffCommands(failed, fixed *shell.Command) *Diff {
	d := newDiff()
	if !slices.Equal(failed.Wrappers, fixed.Wrappers) {
		d.Wrapper = &WrapperChange{From: strings.Join(failed.Wrappers, ", "), To: strings.Join(fixed.Wrappers, ", ")}
	}
	a, aw := splitArgs(failed.Args, false)
	b, bw := splitArgs(fixed.Args, false)
	var removed, added []option
	for _, o := range a {
		if i := slices.IndexFunc(b, func(p option) bool { return p.name == o.name }); i >= 0 {
			switch to := b[i].value; {
			case to == o.value:
			case to == "" || o.value == "":
				// The word after the flag was not its value but a
				// positional word: `pytest -xvs tests/x.py::t` and
				// `pytest -xvs -k t`.
				aw, bw = appendWord(aw, o.value), appendWord(bw, to)
			default:
				d.Changed = append(d.Changed, Change{Flag: o.name, From: o.value, To: to})
			}
			continue
		}
		removed = append(removed, o)
	}
	for _, o := range b {
		if !slices.ContainsFunc(a, func(p option) bool { return p.name == o.name }) {
			added = append(added, o)
		}
	}
	removed, aw = bareFlags(removed, aw, bw)
	added, bw = bareFlags(added, bw, aw)
	for _, by := range []RenameBy{RenameByValue, RenameByContainment, RenameByName} {
		removed, added = matchRenames(d, removed, added, by)
	}
	for _, o := range removed {
		d.Removed = append(d.Removed, o.String())
	}
	for _, o := range added {
		d.Added = append(d.Added, o.String())
	}
	d.Removed = append(d.Removed, missingFrom(aw, bw)...)
	d.Added = append(d.Added, missingFrom(bw, aw)...)
	d.Removed = append(d.Removed, missingFrom(failed.Env, fixed.Env)...)
	d.Added = append(d.Added, missingFrom(fixed.Env, failed.Env)...)
	// The other commands of the line: a `cd ..` or an install added in
	// front of the command.
	xo, yo := joinAll(failed.Others), joinAll(fixed.Others)
	d.Removed = append(d.Removed, missingFrom(xo, yo)...)
	d.Added = append(d.Added, missingFrom(yo, xo)...)
	d.Input = diffInput(failed.Input, fixed.Input)
	return d
}

// diffInput compares the texts two commands read on their standard input
// line by line; nil when no line differs.
func diffInput(x, y string) *InputChange {
	if x == y {
		return nil
	}
	lines := func(s string) []string {
		var out []string
		for l := range strings.Lines(s) {
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, l)
			}
		}
		return out
	}
	xl, yl := lines(x), lines(y)
	if slices.Equal(xl, yl) {
		return nil // only blank lines or the spaces around lines changed
	}
	removed, added := missingFrom(xl, yl), missingFrom(yl, xl)
	if len(removed) == 0 && len(added) == 0 {
		// The same lines in another order: those out of place.
		for i := range xl {
			if xl[i] != yl[i] {
				removed, added = append(removed, xl[i]), append(added, yl[i])
			}
		}
	}
	listed := func(ls []string) []string {
		ls = ls[:min(len(ls), maxInputLines)]
		for i, l := range ls {
			ls[i] = termtext.Cut(l, 200)
		}
		return ls
	}
	return &InputChange{RemovedLines: len(removed), AddedLines: len(added), Removed: listed(removed), Added: listed(added)}
}

// diffInputs compares the inputs of a failed tool call, other than a shell
// command, and its fix: each argument by its name, the file as "file",
// written name=value.
func diffInputs(failed, fixed *parser.Call) *Diff {
	d := newDiff()
	args := func(c *parser.Call) map[string]string {
		m := maps.Clone(c.Args)
		if c.File != "" {
			if m == nil {
				m = make(map[string]string)
			}
			m["file"] = c.File
		}
		return m
	}
	x, y := args(failed), args(fixed)
	for _, name := range slices.Sorted(maps.Keys(x)) {
		to, ok := y[name]
		switch {
		case !ok:
			d.Removed = append(d.Removed, name+"="+termtext.Cut(x[name], maxInput))
		case to != x[name]:
			d.Changed = append(d.Changed, Change{Flag: name, From: termtext.Cut(x[name], maxInput), To: termtext.Cut(to, maxInput)})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(y)) {
		if _, ok := x[name]; !ok {
			d.Added = append(d.Added, name+"="+termtext.Cut(y[name], maxInput))
		}
	}
	return d
}

// maxInput bounds the runes of an argument's value in a Diff of tool
// inputs: a file's content is an argument too.
const maxInput = 80

// bareFlags returns the flags of one command that the other lacks, and its
// positional words, with the word after such a flag taken for a positional
// word when the other command has it as one and it has not: the flag took
// no value (`acme publish --yes ./site`, then `acme publish ./site`).
func bareFlags(opts []option, words, other []string) ([]option, []string) {
	for i, o := range opts {
		if o.value != "" && len(missingFrom([]string{o.value}, other)) == 0 && len(missingFrom([]string{o.value}, words)) > 0 {
			opts[i].value = ""
			words = append(words, o.value)
		}
	}
	return opts, words
}

// appendWord appends w to words unless it is empty.
func appendWord(words []string, w string) []string {
	if w == "" {
		return words
	}
	return append(words, w)
}

func joinAll(argvs [][]string) []string {
	out := make([]string, len(argvs))
	for i, a := range argvs {
		out[i] = strings.Join(a, " ")
	}
	return out
}

// matchRenames pairs removed flags with added ones by the given rule,
// records the pairs in d, and returns the flags left unpaired.
func matchRenames(d *Diff, removed, added []option, by RenameBy) ([]option, []option) {
	var left []option
	for _, r := range removed {
		best, bestScore := -1, 0.0
		for i, ad := range added {
			if !renameMatches(r, ad, by) {
				continue
			}
			if s := similarity(r.name, ad.name); best < 0 || s > bestScore {
				best, bestScore = i, s
			}
		}
		if best < 0 {
			left = append(left, r)
			continue
		}
		ad := added[best]
		d.Renamed = append(d.Renamed, Rename{From: r.name, To: ad.name, FromValue: r.value, ToValue: ad.value, By: by})
		added = slices.Delete(added, best, best+1)
	}
	return left, added
}

func renameMatches(r, a option, by RenameBy) bool {
	switch by {
	case RenameByValue:
		return r.value != "" && r.value == a.value
	case RenameByContainment:
		return contains(a.value, r.value) || contains(r.value, a.value)
	}
	return similarity(r.name, a.name) >= 0.5
}

// contains reports whether s holds sub as a whole: not as a part of a
// longer number or word, so that "5" is not found in "8000500".
func contains(s, sub string) bool {
	if len(sub) < 2 || len(s) <= len(sub) {
		return false
	}
	for i := strings.Index(s, sub); i >= 0; {
		end := i + len(sub)
		if (i == 0 || !isAlnum(s[i-1])) && (end == len(s) || !isAlnum(s[end])) {
			return true
		}
		next := strings.Index(s[i+1:], sub)
		if next < 0 {
			break
		}
		i += next + 1
	}
	return false
}

func isAlnum(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// similarity scores how alike two flag names are, from 0 to 1: the share
// of their words in common, or of their letters by edit distance.
func similarity(x, y string) float64 {
	x, y = strings.ToLower(strings.TrimLeft(x, "-")), strings.ToLower(strings.TrimLeft(y, "-"))
	if x == "" || y == "" {
		return 0
	}
	split := func(s string) []string {
		return strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' || r == '.' })
	}
	xw, yw := split(x), split(y)
	common := 0
	for _, w := range xw {
		if slices.Contains(yw, w) {
			common++
		}
	}
	words := float64(common) / float64(max(len(xw), len(yw)))
	letters := 1 - float64(levenshtein.ComputeDistance(x, y))/float64(max(len(x), len(y)))
	return max(words, letters)
}

// missingFrom returns the words of x that y lacks, each as often as x has
// it more than y.
func missingFrom(x, y []string) []string {
	var out []string
	rest := slices.Clone(y)
	for _, w := range x {
		if i := slices.Index(rest, w); i >= 0 {
			rest = slices.Delete(rest, i, i+1)
			continue
		}
		out = append(out, w)
	}
	return out
}
