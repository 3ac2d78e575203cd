package analyzer

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retrace-dev/retrace/parser"
)

func TestLessonsAcrossSessions(t *testing.T) {
	one := session(step{cmd: "python b.py --num-prompts 5", exit: 2, out: usage}, step{cmd: "python b.py --num-runs 5"})
	two := session(
		step{cmd: "ssh gpu 'python /tmp/b.py --num-prompts 3'", exit: 2, out: usage},
		step{cmd: "ssh gpu 'python /tmp/b.py --num-runs 3'"},
		// Not a usage error: an exception fixed by changing a flag teaches
		// nothing about the flags.
		step{cmd: "python c.py --mode fast", exit: 1, out: "Traceback (most recent call last):\n  File \"c.py\", line 2, in <module>\nValueError: bad mode"},
		step{cmd: "python c.py --mode slow"},
		// A rejected flag dropped.
		step{cmd: "python b.py --verbose --num-runs 1", exit: 2, out: "usage: b.py [-h] [--num-runs N]\nb.py: error: unrecognized arguments: --verbose"},
		step{cmd: "python b.py --num-runs 1"},
	)
	two.Path = "u.jsonl"
	rep := Analyze([]*parser.Session{one, two})
	type lesson struct {
		Target       string
		Kind         LessonKind
		Wrong, Right string
		Count        int
		Where        []Place
	}
	var got []lesson
	for _, l := range rep.Lessons {
		got = append(got, lesson{l.Target, l.Kind, l.Wrong, l.Right, l.Count, l.Where})
	}
	want := []lesson{
		{"b.py", "flag", "--num-prompts", "--num-runs", 2, []Place{{"t.jsonl", "c1", 0}, {"u.jsonl", "c1", 0}}},
		{"b.py", "flag", "--verbose", "", 1, []Place{{"u.jsonl", "c5", 8}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lessons (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"--num-runs", "--server-url"}, rep.Lessons[0].ValidFlags); diff != "" {
		t.Errorf("valid flags (-want +got):\n%s", diff)
	}
}
