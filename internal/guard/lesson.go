package guard

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/retrace-dev/retrace/analyzer"
)

// A Lesson is a flag or value that a target rejected, and the call that
// corrected it: one lesson of `retrace lessons`, in one session, with the
// place of its first failure and of its fix.
type Lesson struct {
	// Target comes first: the store is searched by it without decoding
	// the other lines.
	Target string `json:"target"`
	Kind   string `json:"kind"` // "flag" or "value"
	Wrong  string `json:"wrong"`
	Right  string `json:"right"` // empty when the fix dropped the flag
	// Session is the transcript the lesson was learned from; Failed and
	// Fixed are the msg of the chain's first failure and of its fix.
	Session string `json:"session"`
	Failed  int    `json:"failed"`
	Fixed   int    `json:"fixed"`
	// With says what the fix did: "with --num-runs 5".
	With string `json:"with"`
	// ValidFlags are the flags the target's usage text offered with the
	// failure, if it printed one.
	ValidFlags []string `json:"valid_flags,omitempty"`
}

// A Fix is a failure chain that ended in a fix: what failed and how, and
// what fixed it. The guard hands it back when the same failure comes again.
type Fix struct {
	Target   string   `json:"target"`
	Category string   `json:"category"`
	BadFlags []string `json:"bad_flags,omitempty"`
	Message  string   `json:"message"`
	Failed   int      `json:"failed"`
	Fixed    int      `json:"fixed"`
	With     string   `json:"with"`
}

// Draw returns the lessons and fixes of a session's report. The lessons
// are those `retrace lessons` draws from each fixed chain, of kind flag or
// value; msg numbers are shifted by delta, for a report of the end of a
// transcript.
func Draw(sr *analyzer.SessionReport, delta int) ([]Lesson, []Fix) {
	var lessons []Lesson
	var fixes []Fix
	for _, ch := range sr.Chains {
		if ch.Fix == nil {
			continue
		}
		f := ch.Failure
		failures := ch.Failures()
		fix := Fix{Target: f.Target, Category: string(f.Category), Message: f.Message,
			Failed: f.Msg + delta, Fixed: ch.Fix.Msg + delta, With: with(ch)}
		if len(failures) > 0 {
			fix.BadFlags = failures[len(failures)-1].BadFlags
		}
		fixes = append(fixes, fix)
		one := &analyzer.SessionReport{Session: sr.Session, Chains: []*analyzer.Chain{ch}}
		for _, l := range analyzer.Lessons([]*analyzer.SessionReport{one}) {
			if l.Kind != analyzer.LessonFlag && l.Kind != analyzer.LessonValue {
				continue
			}
			lessons = append(lessons, Lesson{Target: l.Target, Kind: string(l.Kind), Wrong: l.Wrong, Right: l.Right,
				Session: f.Session.Path, Failed: fix.Failed, Fixed: fix.Fixed, With: fix.With,
				ValidFlags: l.ValidFlags})
		}
	}
	return lessons, fixes
}

// with says what the fix of a chain did: "with --num-runs 5" when it
// renamed or changed flags, "by editing x.py", "after pip install flask",
// else "with `COMMAND`" (the fix's command line, abridged).
func with(ch *analyzer.Chain) string {
	if d := ch.Diff; d != nil && len(d.Renamed)+len(d.Changed) > 0 {
		var parts []string
		for _, r := range d.Renamed {
			parts = append(parts, strings.TrimSpace(r.To+" "+r.ToValue))
		}
		for _, c := range d.Changed {
			parts = append(parts, c.Flag+" "+c.To)
		}
		return "with " + strings.Join(parts, " ")
	}
	switch {
	case len(ch.Fix.Files) > 0:
		return "by editing " + strings.Join(ch.Fix.Files, ", ")
	case len(ch.Fix.Changes) > 0:
		return "after " + abridge(strings.Join(ch.Fix.Changes, "; "))
	case ch.Fix.Kind == analyzer.FixSame:
		return "by running it again"
	}
	return "with `" + abridge(ch.Fix.Command) + "`"
}

// maxWith bounds the text of a command quoted in context for the model.
const maxWith = 200

// abridge cuts s to maxWith bytes, at a rune, with an ellipsis.
func abridge(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= maxWith {
		return s
	}
	cut := maxWith
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// confirmed reports whether l may block a call: a flag the usage texts of
// its target do not offer (valid is their union), or a value, that a
// later call of the target succeeded without.
func (l *Lesson) confirmed(valid []string) bool {
	if l.Fixed < l.Failed {
		return false
	}
	switch l.Kind {
	case "flag":
		return !slices.Contains(valid, l.Wrong)
	case "value":
		return true
	}
	return false
}

// usedBy reports whether the arguments args use the wrong flag or value
// of l: "--num-prompts", "--num-prompts=5"; for a value, "--model x" or
// "--model=x".
func (l *Lesson) usedBy(args []string) bool {
	switch l.Kind {
	case "flag":
		for _, a := range args {
			if a == l.Wrong || strings.HasPrefix(a, l.Wrong+"=") {
				return true
			}
		}
	case "value":
		flag, value, ok := strings.Cut(l.Wrong, " ")
		if !ok {
			return false
		}
		for i, a := range args {
			if a == flag+"="+value || a == flag && i+1 < len(args) && args[i+1] == value {
				return true
			}
		}
	}
	return false
}

// reason is the reason to block a call for l; own says that l is of the
// session's own transcript, whose name the reason then leaves out.
func (l *Lesson) reason(own bool) string {
	var s string
	switch {
	case l.Right != "":
		s = fmt.Sprintf("%s takes %s, not %s", l.Target, l.Right, l.Wrong)
	default:
		s = fmt.Sprintf("%s does not take %s", l.Target, l.Wrong)
	}
	return s + " (" + l.place(own) + ")"
}

// place says where l was learned: "failed at msg 4597, fixed at msg 4598",
// and "in FILE" for another session's lesson.
func (l *Lesson) place(own bool) string {
	s := fmt.Sprintf("failed at msg %d, fixed at msg %d", l.Failed, l.Fixed)
	if !own {
		s += " in " + filepath.Base(l.Session)
	}
	return s
}
