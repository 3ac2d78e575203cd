package analyzer

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/retrace-dev/retrace/parser"
)

// corpus is the folder of real public transcripts the team shares. Tests
// that read it skip when it is absent; nothing from it is in this
// repository.
var corpus = filepath.Join("..", "..", "shared", "corpus")

// TestCorpus reads every real transcript: none may make retrace fail, and
// the files of supported formats must give the calls an independent count
// found (tool_use blocks with distinct ids, counted with Python's json).
func TestCorpus(t *testing.T) {
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("no corpus at %s", corpus)
	}
	calls := map[string]int{
		"claude-code/kiliman__test2_cc-v1.0.57.jsonl":                                           189,
		"claude-code/mclaude__3cfce0ff_windows-cygpath.jsonl":                                   290,
		"claude-code/mclaude__554b9fa6_permission-denials.jsonl":                                125,
		"claude-code/mclaude__72dfed17_large-2.6MB.jsonl":                                       169,
		"claude-code/mclaude__agent-ae346a8_subagent-sidechain.jsonl":                           76,
		"claude-code/mclaude__c76e5be5_windows-network.jsonl":                                   296,
		"claude-code/mclaude__c7d2069e_cosmic-applet.jsonl":                                     287,
		"claude-code/sessionshare__general-tool-calls.jsonl":                                    65,
		"claude-code/sniffly__d3ad4cdc.jsonl":                                                   59,
		"codex/agentsessions__fixture__codex-0.146-small.rollout.jsonl":                         3,
		"gemini-cli/skillsbench__gemini3flash__parallel-tfidf-search.session.json":              8,
		"swe-agent/sweagent__demo__marshmallow-1867_function_calling.traj":                      13,
		"swe-agent/sweagent__gpt4__pydicom-1458.traj":                                           12,
		"mini-swe-agent/minisweagent__deepseek_chat_dev__pylint-dev__astroid-1333.traj.json":    176,
		"mini-swe-agent/minisweagent__deepseek_chat_dev__sqlfluff__sqlfluff-1763.traj.json":     100,
		"mini-swe-agent/minisweagent__deepseek_chat_test_1-100__django__django-11910.traj.json": 138,
		"mini-swe-agent/minisweagent__example__astropy-12907.traj.json":                         64,
		"openhands/openhands__tests_runtime_trajs__basic_gui_mode.json":                         4,
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
			want, known := calls[filepath.ToSlash(rel)]
			if errors.Is(err, parser.ErrUnknownFormat) && !known {
				return // a format not supported yet
			}
			if err != nil {
				t.Fatal(err)
			}
			if known && len(s.Calls) != want {
				t.Errorf("got %d calls, want %d", len(s.Calls), want)
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
