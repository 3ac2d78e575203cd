package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The hand labels of real transcripts, kept beside the repository: every
// failed call of each transcript and the call that fixed it, as a careful
// reviewer judged them. TestLabels holds retrace to them.
var (
	labelsDir = filepath.Join("..", "..", "..", "shared", "labels")
	corpusDir = filepath.Join("..", "..", "..", "shared", "corpus")
)

// The figures retrace must keep on the labelled transcripts.
const (
	minPrecision = 0.95
	minF1        = 0.95
	minCategory  = 0.90
	minFix       = 0.90
)

// A labelFile is the labels of one transcript.
type labelFile struct {
	File   string `json:"file"`
	Calls  map[string]labelledCall
	Ignore []string `json:"ignore"`
}

// A labelledCall is the reviewer's judgement of one call.
type labelledCall struct {
	Fail   bool     `json:"fail"`
	Cat    string   `json:"cat"`
	Fix    *string  `json:"fix"`
	FixAlt []string `json:"fix_alt"`
}

// A reported failure, as `retrace errors --format jsonl` prints it.
type reported struct {
	CallID   string  `json:"call_id"`
	Category string  `json:"category"`
	FixedBy  *string `json:"fixed_by"`
}

// labelCounts adds up how retrace's report of the failures agrees with
// the labels, as the labels' own scorer (score.py) counts it.
type labelCounts struct {
	tp, fp, fn, cat, fixOK, fixN int
}

// TestLabels runs `retrace errors` on every labelled transcript and fails
// when its failures, categories or fixes agree with the reviewer's less
// than the figures above. It skips when the labels are not there.
func TestLabels(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(labelsDir, "*.json"))
	if len(files) == 0 {
		t.Skip("no labels in " + labelsDir)
	}
	var all labelCounts
	for _, lf := range files {
		data, err := os.ReadFile(lf)
		if err != nil {
			t.Fatal(err)
		}
		var label labelFile
		if err := json.Unmarshal(data, &label); err != nil {
			t.Fatalf("%s: %v", lf, err)
		}
		got := reportedFailures(t, filepath.Join(corpusDir, label.File))
		c := scoreLabels(label, got)
		t.Logf("%s: %s", label.File, c)
		all.add(c)
	}
	p, _, f1, cat, fix := all.figures()
	t.Logf("all: %s", all)
	if p < minPrecision || f1 < minF1 || cat < minCategory || fix < minFix {
		t.Errorf("on the labelled transcripts: %s; want precision ≥ %.2f, F1 ≥ %.2f, category ≥ %.2f, fix ≥ %.2f",
			all, minPrecision, minF1, minCategory, minFix)
	}
}

// reportedFailures runs `retrace errors --format jsonl` on path and returns
// the failures it reports by call id.
func reportedFailures(t *testing.T, path string) map[string]reported {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env := &Env{Stdin: &bytes.Buffer{}, Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
	if status := run([]string{"errors", "--format", "jsonl", "--quiet", path}, env); status > 1 {
		t.Fatalf("retrace errors %s: status %d\n%s", path, status, stderr.String())
	}
	got := make(map[string]reported)
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r reported
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		got[r.CallID] = r
	}
	return got
}

// scoreLabels counts how the failures retrace reported agree with the
// labels of one transcript.
func scoreLabels(label labelFile, got map[string]reported) labelCounts {
	var c labelCounts
	for id, want := range label.Calls {
		if !want.Fail {
			continue
		}
		r, ok := got[id]
		if !ok {
			c.fn++
			continue
		}
		c.tp++
		if r.Category == want.Cat {
			c.cat++
		}
		c.fixN++
		fixes := []*string{want.Fix}
		for _, alt := range want.FixAlt {
			fixes = append(fixes, &alt)
		}
		if slices.ContainsFunc(fixes, func(f *string) bool { return sameID(f, r.FixedBy) }) {
			c.fixOK++
		}
	}
	for id := range got {
		if w, ok := label.Calls[id]; (!ok || !w.Fail) && !slices.Contains(label.Ignore, id) {
			c.fp++
		}
	}
	return c
}

// sameID reports whether two optional call ids are equal, both absent
// included.
func sameID(x, y *string) bool {
	if x == nil || y == nil {
		return x == nil && y == nil
	}
	return *x == *y
}

func (c *labelCounts) add(d labelCounts) {
	c.tp += d.tp
	c.fp += d.fp
	c.fn += d.fn
	c.cat += d.cat
	c.fixOK += d.fixOK
	c.fixN += d.fixN
}

// figures returns precision, recall, F1, the share of right categories and
// of right fixes, as score.py computes them.
func (c labelCounts) figures() (p, r, f1, cat, fix float64) {
	ratio := func(x, y int) float64 {
		if y == 0 {
			return 1
		}
		return float64(x) / float64(y)
	}
	p, r = ratio(c.tp, c.tp+c.fp), ratio(c.tp, c.tp+c.fn)
	if p+r > 0 {
		f1 = 2 * p * r / (p + r)
	}
	return p, r, f1, ratio(c.cat, c.tp), ratio(c.fixOK, c.fixN)
}

func (c labelCounts) String() string {
	p, r, f1, cat, fix := c.figures()
	return fmt.Sprintf("failures P=%.2f R=%.2f F1=%.2f | category %.2f | fix %d/%d = %.2f", p, r, f1, cat, c.fixOK, c.fixN, fix)
}
