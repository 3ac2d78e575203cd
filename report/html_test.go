package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/parser"
)

// TestAnchors checks that anchors are made of [a-z0-9-] only, start with a
// letter, and are handed out once each, the same for the same inputs.
func TestAnchors(t *testing.T) {
	var a anchors
	for _, tt := range []struct{ in, want string }{
		{"s-7d3c5b1e", "s-7d3c5b1e"},
		{"s-7d3c5b1e", "s-7d3c5b1e-2"},
		{"s-7d3c5b1e-4", "s-7d3c5b1e-4"},
		{"s-7d3c5b1e", "s-7d3c5b1e-3"},
		{"s-7d3c5b1e", "s-7d3c5b1e-5"}, // -4 was taken as itself
		{"s-7d3c5b1e-3", "s-7d3c5b1e-3-2"},
		{`s-"><script>alert(1)</script>`, "s-script-alert-1-script"},
		{"S-Django__Django-11099", "s-django-django-11099"},
		{"", "x-"},
		{"42", "x-42"},
		{"s-" + strings.Repeat("ab", 100), "s-" + strings.Repeat("ab", 19)},
		{"s-ümlaut é", "s-mlaut"},
	} {
		if got := a.add(tt.in); got != tt.want {
			t.Errorf("add(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPlainTitle(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"# Parallel TF-IDF Similarity Search", "Parallel TF-IDF Similarity Search"},
		{"**Router hardening complete: cloud/VPN/telemetry removal**", "Router hardening complete: cloud/VPN/telemetry removal"},
		{"Fix `retrace pairs` for [the issue](https://example.com/1)", "Fix retrace pairs for the issue"},
		{"> - a *quoted* item with __strong__ and ~~old~~ words", "a quoted item with strong and old words"},
		{"2 * 3 = 6", "2 * 3 = 6"},
		{"snake_case_name stays", "snake_case_name stays"},
	} {
		if got := plainTitle(tt.in); got != tt.want {
			t.Errorf("plainTitle(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestHighlight(t *testing.T) {
	for _, tt := range []struct {
		cmd   string
		marks []string
		want  string
	}{
		{"bench.py --n 5 --nn 6", []string{"--n"}, "bench.py <mark>--n</mark> 5 --nn 6"},
		{"bench.py --n=5 --nn 6", []string{"--n 5", "--n=5"}, "bench.py <mark>--n=5</mark> --nn 6"},
		{"a --x <b> --x", []string{"--x"}, "a <mark>--x</mark> &lt;b&gt; <mark>--x</mark>"},
		{"a --long --l", []string{"--l", "--long"}, "a <mark>--long</mark> <mark>--l</mark>"},
		{"a --<i>", []string{"--<i>"}, "a <mark>--&lt;i&gt;</mark>"},
		{"python3 b\\u202e x", []string{"x"}, `python3 b<span class="invisible" title="an invisible character, U+202E">\u202e</span> <mark>x</mark>`},
		{"no marks", nil, "no marks"},
	} {
		if got := string(highlight(tt.cmd, tt.marks)); got != tt.want {
			t.Errorf("highlight(%q, %q) = %q, want %q", tt.cmd, tt.marks, got, tt.want)
		}
	}
}

// TestTimelineBounded checks that a timeline's size grows with the
// failures, not with the calls.
func TestTimelineBounded(t *testing.T) {
	size := func(calls, failures int) int {
		tl := &timelineDoc{}
		for i := range calls {
			tl.place(mark{At: float64(i) / float64(calls), Kind: "ok"})
		}
		for i := range failures {
			tl.place(mark{At: float64(i) / float64(failures), Kind: "failed"})
		}
		v := newTimelineView(tl)
		return len(v.Bars) + len(v.Failed)
	}
	failed := func(n int) int {
		tl := &timelineDoc{}
		for i := range n {
			tl.place(mark{At: float64(i) / float64(n), Kind: "failed"})
		}
		return len(newTimelineView(tl).Failed)
	}
	if small, big := size(100, 10), size(100000, 10); big > small+timelineBins {
		t.Errorf("a timeline of 100 000 calls takes %d bytes, of 100 calls %d", big, small)
	}
	if few, many := failed(10), failed(1000); many < few*50 {
		t.Errorf("a timeline of 1000 failures takes %d bytes, of 10 failures %d: are failures left out?", many, few)
	}
}

// TestStoriesBounded checks that the page tells at most maxStories
// chains, each session's costliest first, and lists every chain.
func TestStoriesBounded(t *testing.T) {
	var sessions []*htmlSession
	var costs [][]chainCost
	for i := range 300 {
		sd := &sessionDoc{}
		var cs []chainCost
		for j := range 10 {
			sd.Open = append(sd.Open, &chainDoc{Anchor: fmt.Sprintf("s%d-c%d", i, j), Seconds: float64(j)})
			cs = append(cs, chainCost{seconds: float64(j)})
		}
		sessions = append(sessions, &htmlSession{sessionDoc: sd})
		costs = append(costs, cs)
	}
	told := tellStories(costs)
	for i, hs := range sessions {
		sessions[i] = newHTMLSession(hs.sessionDoc, told[i])
	}
	stories, rows := 0, 0
	for _, hs := range sessions {
		stories += len(hs.Stories)
		rows += len(hs.Rows)
		if len(hs.Stories) == 0 || hs.Stories[len(hs.Stories)-1].Seconds != 9 {
			t.Fatalf("session %s does not tell its costliest chain", hs.Rows[0].Anchor)
		}
	}
	if stories != maxStories || rows != 3000 {
		t.Errorf("%d stories and %d rows, want %d and 3000", stories, rows, maxStories)
	}
}

// TestCaveat checks that a series whose own file was edited between its
// runs says that they may not compare, and that one whose code alone
// changed does not.
func TestCaveat(t *testing.T) {
	points := []*analyzer.Bench{{Msg: 6}, {Msg: 8}}
	calls := []*parser.Call{
		{Msg: 6, Kind: parser.KindShell, Command: "python3 verify.py"},
		{Msg: 7, Kind: parser.KindEdit, File: "/w/lib.py"},
		{Msg: 7, Kind: parser.KindRead, File: "/w/verify.py"},
	}
	edits := func() []edit {
		return viewCalls(&analyzer.SessionReport{Session: &parser.Session{Calls: calls}, Benchmarks: points}).edits
	}
	r := &series{target: "verify.py", points: pointsOf(&analyzer.Timeline{Points: points})}
	if got := caveat(r, edits()); got != "" {
		t.Errorf("caveat after an edit of lib.py = %q, want none", got)
	}
	calls = append(calls, &parser.Call{Msg: 7, Kind: parser.KindEdit, File: "/w/verify.py"})
	if got := caveat(r, edits()); !strings.Contains(got, "verify.py itself was edited at msg 7") {
		t.Errorf("caveat after an edit of verify.py = %q", got)
	}
	if got := caveat(&series{target: "x", points: r.points, sweep: true}, nil); !strings.Contains(got, "sweep") {
		t.Errorf("caveat of a sweep = %q", got)
	}
}

// TestPageSafe checks the page's guarantees on the seed report: the
// Content-Security-Policy lets run exactly the page's one style and one
// script, by their hashes; no element carries an inline event handler or
// a style attribute; every link into the page finds its anchor, and ids
// are given once.
func TestPageSafe(t *testing.T) {
	var b bytes.Buffer
	if err := PostMortem(&b, Options{Format: HTML}, seedReport(t)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	csp := regexp.MustCompile(`content="default-src 'none'; style-src &#39;(sha256-.+?)&#39;; script-src &#39;(sha256-.+?)&#39;; img-src data:"`).FindStringSubmatch(page)
	if csp == nil {
		t.Fatalf("no Content-Security-Policy with hashes in:\n%s", page[:min(len(page), 2000)])
	}
	if want := strings.Trim(cspHash(pageStyle), "'"); csp[1] != strings.ReplaceAll(want, "+", "&#43;") {
		t.Errorf("style-src %s, want %s", csp[1], want)
	}
	if want := strings.Trim(cspHash(pageScript), "'"); csp[2] != strings.ReplaceAll(want, "+", "&#43;") {
		t.Errorf("script-src %s, want %s", csp[2], want)
	}
	if n := strings.Count(page, "<script"); n != 1 || !strings.Contains(page, "<script>"+pageScript+"</script>") {
		t.Errorf("%d script elements, want the page's one", n)
	}
	if n := strings.Count(page, "<style"); n != 1 || !strings.Contains(page, "<style>"+pageStyle+"</style>") {
		t.Errorf("%d style elements, want the page's one", n)
	}
	if m := regexp.MustCompile(`<[^>]*\s(on[a-z]+|style)=`).FindString(page); m != "" {
		t.Errorf("an inline handler or style: %s", m)
	}
	ids := map[string]int{}
	for _, m := range regexp.MustCompile(` id="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		ids[m[1]]++
	}
	for id, n := range ids {
		if n > 1 {
			t.Errorf("id %q given %d times", id, n)
		}
	}
	links := regexp.MustCompile(` href="#([^"]*)"`).FindAllStringSubmatch(page, -1)
	for _, m := range links {
		if ids[m[1]] == 0 {
			t.Errorf("a link to #%s, which no id names", m[1])
		}
	}
	if len(links) < 5 {
		t.Errorf("%d links into the page, want one per session and chain at least", len(links))
	}
}
