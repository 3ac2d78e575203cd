package analyzer

import (
	"cmp"
	"slices"
	"strings"

	"github.com/retrace-dev/retrace/diagnose"
)

// A Lesson is a mistake made, and corrected, once or more: the objects
// `retrace lessons` prints.
type Lesson struct {
	Target string     `json:"target"`
	Kind   LessonKind `json:"kind"` // what was wrong
	Wrong  string     `json:"wrong"`
	Right  string     `json:"right"` // empty when the fix dropped the wrong part
	Count  int        `json:"count"`
	Where  []Place    `json:"where"`
	// ValidFlags are the flags the target's usage texts offered.
	ValidFlags []string `json:"valid_flags"`
}

// A LessonKind says what a lesson corrects.
type LessonKind string

// The kinds of lesson.
const (
	LessonFlag    LessonKind = "flag"    // a flag the program does not take
	LessonValue   LessonKind = "value"   // a value it rejected
	LessonCommand LessonKind = "command" // a program that is not installed, and the one that did its job
)

// A Place is where a mistake was made.
type Place struct {
	Path   string `json:"path"`
	CallID string `json:"call_id"`
	Msg    int    `json:"msg"`
}

// Lessons groups the corrections of usage errors in all the reports by
// target and change, most frequent first. A correction is taken from a
// fixed chain whose failure the program itself rejected as a usage error:
// each rejected flag the fix renamed or dropped, and each rejected value
// it changed.
func Lessons(reports []*SessionReport) []*Lesson {
	var ls LessonSet
	for _, r := range reports {
		ls.Add(r)
	}
	return ls.Lessons()
}

// A LessonSet draws lessons from sessions added one by one, which it does
// not keep: Lessons of the sessions added so far is Lessons of them all.
// The zero LessonSet has no sessions.
type LessonSet struct {
	byKey map[[4]string]*Lesson
	valid map[string][]string // the flags each target's usage texts offered
	order []*Lesson           // in the order first made
}

// Add takes the corrections of one more session.
func (ls *LessonSet) Add(r *SessionReport) {
	if ls.byKey == nil {
		ls.byKey = make(map[[4]string]*Lesson)
		ls.valid = make(map[string][]string)
	}
	for _, ch := range r.Chains {
		for _, f := range ch.failures {
			if f.Category == diagnose.CLIUsage {
				ls.valid[f.Target] = union(ls.valid[f.Target], f.ValidFlags)
			}
		}
		for _, l := range corrections(ch) {
			key := [4]string{l.Target, string(l.Kind), l.Wrong, l.Right}
			have, ok := ls.byKey[key]
			if !ok {
				ls.byKey[key] = l
				ls.order = append(ls.order, l)
				continue
			}
			have.Count++
			have.Where = append(have.Where, l.Where...)
		}
	}
}

// Lessons returns the lessons of the sessions added, most frequent first.
func (ls *LessonSet) Lessons() []*Lesson {
	order := slices.Clone(ls.order)
	for _, l := range order {
		l.ValidFlags = nonNil(ls.valid[l.Target])
	}
	slices.SortStableFunc(order, func(x, y *Lesson) int {
		return cmp.Or(cmp.Compare(y.Count, x.Count), strings.Compare(x.Target, y.Target))
	})
	return order
}

// corrections lists what the fix of a chain corrected: the flags and
// values of a usage error, or the program that was not found and the one
// that did its job. Another workaround (a look that did a failed look's
// job) teaches nothing that can be said as a lesson.
func corrections(ch *Chain) []*Lesson {
	f := ch.Failure
	if w := ch.Workaround; w != nil {
		last := ch.failures[len(ch.failures)-1]
		if last.Category != diagnose.CommandNotFound || last.Program == "" || w.Program() == "" {
			return nil
		}
		return []*Lesson{{Target: last.Program, Kind: LessonCommand, Wrong: last.Program, Right: w.Program(), Count: 1,
			Where: []Place{{Path: f.Session.Path, CallID: f.CallID, Msg: f.Msg}}}}
	}
	if ch.Diff == nil || f.Category != diagnose.CLIUsage {
		return nil
	}
	bad := ch.failures[len(ch.failures)-1].BadFlags
	where := []Place{{Path: f.Session.Path, CallID: f.CallID, Msg: f.Msg}}
	var out []*Lesson
	add := func(kind LessonKind, wrong, right string) {
		out = append(out, &Lesson{Target: f.Target, Kind: kind, Wrong: wrong, Right: right, Count: 1, Where: where})
	}
	for _, r := range ch.Diff.Renamed {
		if slices.Contains(bad, r.From) {
			add(LessonFlag, r.From, r.To)
		}
	}
	for _, rm := range ch.Diff.Removed {
		if name := flagName(rm); name != "" && slices.Contains(bad, name) {
			add(LessonFlag, name, "")
		}
	}
	for _, c := range ch.Diff.Changed {
		if slices.Contains(bad, c.Flag) {
			add(LessonValue, c.Flag+" "+c.From, c.Flag+" "+c.To)
		}
	}
	return out
}

func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}
