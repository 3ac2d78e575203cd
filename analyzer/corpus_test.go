package analyzer

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retrace-dev/retrace/diagnose"
	"github.com/retrace-dev/retrace/parser"
)

var update = flag.Bool("update", false, "rewrite golden files")

// corpus is the folder of real public transcripts the team shares. Tests
// that read it skip when it is absent; nothing from it is in this
// repository.
var corpus = filepath.Join("..", "..", "shared", "corpus")

// TestCorpus reads every real transcript: each must be recognized as its
// format, none may make retrace fail, and each must give the calls an
// independent count found (with Python's json module for JSON formats —
// tool_use blocks with distinct ids, but for the polls of background
// commands (TaskOutput, BashOutput, KillShell with the id of a command
// whose result said it went to the background), function calls by
// call_id, trajectory steps with an action — and with grep for the call
// markers of console copies).
func TestCorpus(t *testing.T) {
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("no corpus at %s", corpus)
	}
	want := map[string]struct {
		format string
		calls  int
	}{
		"claude-code/kiliman__test2_cc-v1.0.57.jsonl":                                           {"claude-code", 189},
		"claude-code/mclaude__3cfce0ff_windows-cygpath.jsonl":                                   {"claude-code", 282},
		"claude-code/mclaude__554b9fa6_permission-denials.jsonl":                                {"claude-code", 145},
		"claude-code/mclaude__72dfed17_large-2.6MB.jsonl":                                       {"claude-code", 169},
		"claude-code/mclaude__agent-ae346a8_subagent-sidechain.jsonl":                           {"claude-code", 76},
		"claude-code/mclaude__c76e5be5_windows-network.jsonl":                                   {"claude-code", 294},
		"claude-code/mclaude__c7d2069e_cosmic-applet.jsonl":                                     {"claude-code", 287},
		"claude-code/sessionshare__general-tool-calls.jsonl":                                    {"claude-code", 63},
		"claude-code/sniffly__d3ad4cdc.jsonl":                                                   {"claude-code", 59},
		"codex/agentsessions__fixture__codex-0.146-small.rollout.jsonl":                         {"codex", 3},
		"codex/envgym__codex-ts-log__Catch2_20250429.txt":                                       {"codex", 30},
		"codex/envgym__codex-ts-log__logstash_20250430.txt":                                     {"codex", 43},
		"codex/envgym__codex-ts-log__mockito_20250430.txt":                                      {"codex", 36},
		"gemini-cli/skillsbench__gemini3flash__parallel-tfidf-search.session.json":              {"gemini", 8},
		"swe-agent/sweagent__demo__marshmallow-1867_function_calling.traj":                      {"swe-agent", 13},
		"swe-agent/sweagent__gpt4__pydicom-1458.traj":                                           {"swe-agent", 12},
		"mini-swe-agent/minisweagent__deepseek_chat_dev__pylint-dev__astroid-1333.traj.json":    {"mini-swe-agent", 176},
		"mini-swe-agent/minisweagent__deepseek_chat_dev__sqlfluff__sqlfluff-1763.traj.json":     {"mini-swe-agent", 100},
		"mini-swe-agent/minisweagent__deepseek_chat_test_1-100__django__django-11910.traj.json": {"mini-swe-agent", 138},
		"mini-swe-agent/minisweagent__example__astropy-12907.traj.json":                         {"mini-swe-agent", 64},
		"openhands/openhands__tests_runtime_trajs__basic_gui_mode.json":                         {"openhands", 4},
		"other/bookminder__claude-code-console__day-020.md":                                     {"text:claude-console", 1872},
		"other/bookminder__gemini-cli-console__day-011.md":                                      {"text:gemini-console", 400},
		"other/tbench-leaderboard__swe-agent-mini__new-encrypt-command.agent.log":               {"text:mini-swe-agent-console", 9},
	}
	files, err := filepath.Glob(filepath.Join(corpus, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		rel, _ := filepath.Rel(corpus, file)
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			s, err := parser.Parse(f, rel, nil)
			w, known := want[filepath.ToSlash(rel)]
			if !known {
				t.Fatalf("Parse = %v; the file is not in the table", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Format != w.format || len(s.Calls) != w.calls {
				t.Errorf("read as %s with %d calls, want %s with %d", s.Format, len(s.Calls), w.format, w.calls)
			}
			rep := AnalyzeSession(s)
			for _, ch := range rep.Chains {
				if ch.Fix != nil && ch.Fix.Msg < ch.Failure.Msg {
					t.Errorf("chain at msg %d fixed at earlier msg %d", ch.Failure.Msg, ch.Fix.Msg)
				}
			}
		})
	}
}

// TestCorpusCategories pins, per corpus transcript, how many failures of
// each category retrace finds and how many of their chains end in a fix, in
// testdata/corpus-categories.golden. A change in them must be seen and
// explained: rewrite the file with -update and say why in the commit.
func TestCorpusCategories(t *testing.T) {
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("no corpus at %s", corpus)
	}
	files, err := filepath.Glob(filepath.Join(corpus, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	total := map[diagnose.Category]int{}
	for _, file := range files {
		rel, _ := filepath.Rel(corpus, file)
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		s, err := parser.Parse(f, rel, nil)
		f.Close()
		if err != nil {
			continue // TestCorpus says which files are of no known format
		}
		rep := AnalyzeSession(s)
		count := map[diagnose.Category]int{}
		for _, fl := range rep.Failures {
			count[fl.Category]++
			total[fl.Category]++
		}
		fixed := 0
		for _, ch := range rep.Chains {
			if ch.Fix != nil {
				fixed++
			}
		}
		fmt.Fprintf(&b, "%s: %d calls, %d failures, %d fixed\n", filepath.ToSlash(rel), len(s.Calls), len(rep.Failures), fixed)
		writeCounts(&b, count)
	}
	b.WriteString("all:\n")
	writeCounts(&b, total)

	path := filepath.Join("..", "testdata", "corpus-categories.golden")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("failure counts on the corpus changed (-want +got); if that is right, rewrite them with -update and explain the change:\n%s", diff)
	}
}

// writeCounts writes one "  category: n" line per category found, in the
// order of diagnose.Categories.
func writeCounts(b *strings.Builder, count map[diagnose.Category]int) {
	for _, c := range diagnose.Categories {
		if count[c] > 0 {
			fmt.Fprintf(b, "  %s: %d\n", c, count[c])
		}
	}
}
