package parser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkMatchesOwnSamplesOnly checks that match accepts the head of every
// sample in testdata/<format> and of no sample of another format, so that
// the order of the registry does not decide between them.
func checkMatchesOwnSamplesOnly(t *testing.T, format string, match func([]byte) bool) {
	t.Helper()
	for name, files := range samples(t) {
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if got := match(head(data)); got != (name == format) {
				t.Errorf("match %s(%s) = %v, want %v", format, file, got, name == format)
			}
		}
	}
}

func TestSWEAgentMatch(t *testing.T) {
	checkMatchesOwnSamplesOnly(t, "swe-agent", matchSWEAgent)
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{`{"environment":"swe_main","trajectory":[{"action":"ls","observation":"a"}],"info":{}}`, true},
		{"{\n  \"trajectory\": [\n    {\n      \"action\": \"cat big.txt\",\n      \"observation\": \"cut off he", true},
		{"{\n  \"trajectory\": [\n    {\n      \"act", false},
		{`{"trajectory":[{"action":"ls`, true},
		{`{"trajectory":[],"history":[],"info":{"exit_status":"exit_cost"}}`, true},
		{`{"trajectory":[]}`, false},
		{`{"trajectory":[{"steps":1}]}`, false},
		{`{"trajectory":"x","info":{}}`, false},
		{`[{"action":"ls"}]`, false},
	} {
		if got := matchSWEAgent([]byte(tt.in)); got != tt.want {
			t.Errorf("matchSWEAgent(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestSWEAgentActions states how each kind of action becomes a call.
func TestSWEAgentActions(t *testing.T) {
	type call struct {
		Tool, Kind, Command, File string
	}
	for _, tt := range []struct {
		action, openFile string
		want             call
	}{
		{"ls -la", "", call{"bash", "shell", "ls -la", ""}},
		{"find . -name '*.py'", "", call{"bash", "shell", "find . -name '*.py'", ""}},
		{"open \"src/my file.py\" 40", "", call{"open", "read", "", "src/my file.py"}},
		{"goto 120", "/r/a.py", call{"goto", "read", "", "/r/a.py"}},
		{"scroll_down", "/r/a.py", call{"scroll_down", "read", "", "/r/a.py"}},
		{"edit 3:4\nx = 1\nend_of_edit", "/r/a.py", call{"edit", "edit", "", "/r/a.py"}},
		{"create new.py", "", call{"create", "write", "", "new.py"}},
		{"search_file 'def main'", "/r/a.py", call{"search_file", "search", "", "/r/a.py"}},
		{"search_file main b.py", "/r/a.py", call{"search_file", "search", "", "b.py"}},
		{"search_dir TODO src", "", call{"search_dir", "search", "", ""}},
		{"str_replace_editor view /r/a.py --view_range 1 20", "", call{"str_replace_editor", "read", "", "/r/a.py"}},
		{"str_replace_editor insert /r/a.py --insert_line 3 --new_str 'y'", "", call{"str_replace_editor", "edit", "", "/r/a.py"}},
		{"str_replace_editor undo_edit /r/a.py", "", call{"str_replace_editor", "edit", "", "/r/a.py"}},
		{"submit", "", call{"submit", "other", "", ""}},
		{"exit_cost", "", call{"exit_cost", "other", "", ""}},
	} {
		c := &Call{}
		sweAction(c, tt.action, tt.openFile)
		got := call{c.Tool, string(c.Kind), c.Command, c.File}
		if got != tt.want {
			t.Errorf("sweAction(%q) = %+v, want %+v", tt.action, got, tt.want)
		}
	}
}

// TestSWEAgentSteps covers steps the samples do not: a step without an
// action, an editor refusal, a flag the CTF bundle's submit refused, a
// shell command, whose outcome the format does not record, and a
// trajectory that is not an object.
func TestSWEAgentSteps(t *testing.T) {
	in := `{"trajectory":[
{"action":"","observation":"","thought":"no command"},
{"action":"open nope.py","observation":"File nope.py not found","state":{"open_file":"n/a","working_dir":"/w"}},
{"action":"goto 5","observation":"No file open. Use the open command first.","state":{"open_file":"n/a"}},
{"action":"cat nope.py","observation":"cat: nope.py: No such file or directory"},
{"action":"submit flag{a b}","observation":"Wrong flag!"}
],"info":{}}`
	s, err := Parse(strings.NewReader(in), "f", Lookup("swe-agent"))
	if err != nil {
		t.Fatal(err)
	}
	type call struct {
		Msg        int
		Tool       string
		File       string
		IsError    bool
		Unrecorded bool
		Line       int
	}
	var got []call
	for _, c := range s.Calls {
		got = append(got, call{c.Msg, c.Tool, c.File, c.IsError, c.Unrecorded, c.Pos.Line})
	}
	want := []call{{1, "open", "nope.py", true, false, 3}, {2, "goto", "", true, false, 4}, {3, "bash", "", false, true, 5}, {4, "submit", "", true, false, 6}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if s.Cwd != "/w" {
		t.Errorf("Cwd = %q, want /w", s.Cwd)
	}

	s, _ = Parse(strings.NewReader(`[1,2]`), "f", Lookup("swe-agent"))
	if len(s.Skipped) != 1 || s.Skipped[0].Error() != "f:1: not a JSON object: expected a SWE-agent trajectory" {
		t.Errorf("Skipped = %v", s.Skipped)
	}
}

func TestCommandFields(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want []string
	}{
		{`open "a b.py" 12`, 3, []string{"open", "a b.py", "12"}},
		{"edit 1:2\nbody", 3, []string{"edit", "1:2"}},
		{`  x  'y z'  `, 2, []string{"x", "y z"}},
		{``, 2, nil},
		{`a "unclosed`, 2, []string{"a", "unclosed"}},
	} {
		if got := commandFields(tt.in, tt.n); !cmp.Equal(got, tt.want) {
			t.Errorf("commandFields(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

// TestCorpusSWEFamily reads the real transcripts of the team's shared
// corpus, when it is there: each must be recognized as its format and give
// the calls counted independently with Python's json (trajectory steps with
// an action; assistant tool_calls; agent tool actions).
func TestCorpusSWEFamily(t *testing.T) {
	corpus := filepath.Join("..", "..", "shared", "corpus")
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("no corpus at %s", corpus)
	}
	for file, want := range map[string]int{
		"swe-agent/sweagent__demo__marshmallow-1867_function_calling.traj":                      13,
		"swe-agent/sweagent__gpt4__pydicom-1458.traj":                                           12,
		"mini-swe-agent/minisweagent__deepseek_chat_dev__pylint-dev__astroid-1333.traj.json":    176,
		"mini-swe-agent/minisweagent__deepseek_chat_dev__sqlfluff__sqlfluff-1763.traj.json":     100,
		"mini-swe-agent/minisweagent__deepseek_chat_test_1-100__django__django-11910.traj.json": 138,
		"mini-swe-agent/minisweagent__example__astropy-12907.traj.json":                         64,
		"openhands/openhands__tests_runtime_trajs__basic_gui_mode.json":                         4,
	} {
		data, err := os.ReadFile(filepath.Join(corpus, file))
		if err != nil {
			t.Error(err)
			continue
		}
		format, _, _ := strings.Cut(file, "/")
		if f := Detect(head(data)); f == nil || f.Name != format {
			t.Errorf("Detect(%s) = %v, want %s", file, f, format)
		}
		s, err := Parse(strings.NewReader(string(data)), file, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Calls) != want || len(s.Skipped) != 0 {
			t.Errorf("%s: %d calls and %d skipped, want %d and 0", file, len(s.Calls), len(s.Skipped), want)
		}
	}
}
