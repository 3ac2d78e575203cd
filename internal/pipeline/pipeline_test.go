package pipeline

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/internal/redact"
	"github.com/retrace-dev/retrace/parser"
)

// A call is one shell call of a generated Claude Code session.
type call struct {
	command, output string
	failed          bool
}

// claude returns a Claude Code transcript of one session, id, started at
// start, with the calls given, a second apart.
func claude(id string, start time.Time, calls ...call) []byte {
	var b bytes.Buffer
	rec := func(v map[string]any) {
		line, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	at := func(i int) string { return start.Add(time.Duration(i) * time.Second).Format(time.RFC3339) }
	rec(map[string]any{"type": "user", "uuid": "u0", "sessionId": id, "timestamp": at(0),
		"message": map[string]any{"role": "user", "content": "go"}})
	for i, c := range calls {
		tool := fmt.Sprintf("toolu_%d", i+1)
		rec(map[string]any{"type": "assistant", "uuid": fmt.Sprintf("a%d", i), "sessionId": id, "timestamp": at(i + 1),
			"message": map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "tool_use", "id": tool, "name": "Bash", "input": map[string]any{"command": c.command}}}}})
		rec(map[string]any{"type": "user", "uuid": fmt.Sprintf("r%d", i), "sessionId": id, "timestamp": at(i + 1),
			"message": map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": tool, "content": c.output, "is_error": c.failed}}}})
	}
	return b.Bytes()
}

var day = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// session is a transcript with one failed call and its fix.
func session(id string) []byte {
	return claude(id, day,
		call{"python3 run.py --num-prompts 5", "usage: run.py [-h] [--num-runs N]\nrun.py: error: unrecognized arguments: --num-prompts 5", true},
		call{"python3 run.py --num-runs 5", "done", false})
}

// write writes the files, named by their path under dir, and returns dir.
func write(t *testing.T, dir string, files map[string][]byte) string {
	t.Helper()
	for name, data := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func gzipped(t *testing.T, data []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zstded(t *testing.T, data []byte) []byte {
	w, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	return w.EncodeAll(data, nil)
}

// run runs Each with n and returns the paths of the sessions handed on,
// in order, and the messages told.
func run(t *testing.T, n Needs) (paths []string, msgs []Message, err error) {
	t.Helper()
	n.Tell = func(m Message) { msgs = append(msgs, m) }
	err = Each(n, func(r *analyzer.SessionReport) {
		paths = append(paths, r.Session.Path)
	})
	return paths, msgs, err
}

// TestDiscover checks which files a run finds: folders are searched in
// lexical order, with hidden folders passed over; compressed files are
// read as what they hold; a path is taken as it is, patterns and all; a
// path that does not exist is told, as ls says it, and the rest is read.
func TestDiscover(t *testing.T) {
	dir := write(t, t.TempDir(), map[string][]byte{
		"b.jsonl":            session("b"),
		"a/z.jsonl.gz":       gzipped(t, session("z")),
		"a/y.jsonl.zst":      zstded(t, session("y")),
		".git/hidden.jsonl":  session("hidden"),
		"c/empty.jsonl":      nil,
		"c/notes.txt":        []byte("not a transcript\n"),
		"glob/s*.jsonl":      session("star"),
		"glob/sessions.json": session("s"),
	})
	missing := filepath.Join(dir, "missing.jsonl")
	star := filepath.Join(dir, "glob", "s*.jsonl")
	paths, msgs, err := run(t, Needs{Paths: []string{dir, missing, star}})
	if err != ErrPartial {
		t.Errorf("Each = %v, want ErrPartial", err)
	}
	want := []string{
		filepath.Join(dir, "a", "y.jsonl.zst"),
		filepath.Join(dir, "a", "z.jsonl.gz"),
		filepath.Join(dir, "b.jsonl"),
		star,
		filepath.Join(dir, "glob", "sessions.json"),
		star,
	}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("sessions (-want +got):\n%s", diff)
	}
	wantMsgs := []Message{
		{Text: missing + ": no such file or directory", Lost: true, Kind: KindUnread},
		{Text: filepath.Join(dir, "c", "notes.txt") + ": skipped: no known transcript format", Kind: KindUnknown},
		{Text: "retrace: skipped 1 empty file"},
		{Text: "retrace: skipped 1 file of no known transcript format"},
	}
	if diff := cmp.Diff(wantMsgs, msgs); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

// TestDiscoverNamed checks that a file named on the command line is not
// passed over as one found in a folder is: an empty or unknown file is
// an input lost, and when no input is left, nothing was read.
func TestDiscoverNamed(t *testing.T) {
	dir := write(t, t.TempDir(), map[string][]byte{"empty.jsonl": nil, "notes.txt": []byte("not a transcript\n")})
	_, msgs, err := run(t, Needs{Paths: []string{filepath.Join(dir, "empty.jsonl"), filepath.Join(dir, "notes.txt")}})
	if err != ErrNothingRead {
		t.Errorf("Each = %v, want ErrNothingRead", err)
	}
	want := []Message{
		{Text: filepath.Join(dir, "empty.jsonl") + ": empty file", Lost: true, Kind: KindUnread},
		{Text: filepath.Join(dir, "notes.txt") + `: not a transcript format retrace knows (see "retrace formats"; --input-format names one)`, Lost: true, Kind: KindUnread},
	}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

// TestStdin checks that "-" reads the standard input given.
func TestStdin(t *testing.T) {
	paths, msgs, err := run(t, Needs{Paths: []string{"-"}, Stdin: bytes.NewReader(gzipped(t, session("in")))})
	if err != nil || len(msgs) > 0 {
		t.Fatalf("Each = %v, %v", err, msgs)
	}
	if want := []string{"<stdin>"}; !slices.Equal(paths, want) {
		t.Errorf("sessions %q, want %q", paths, want)
	}
}

// TestReadAllOrder checks that the results reach use in the order of the
// sources, parts before the last result of their source, whatever order
// the workers finish in: here each source takes longer than the one after
// it, so that they finish in reverse.
func TestReadAllOrder(t *testing.T) {
	const n = 24
	for _, workers := range []int{1, 3, 8} {
		t.Run(fmt.Sprint(workers, " workers"), func(t *testing.T) {
			var mu sync.Mutex
			var finished []int
			read := func(i int, part func(string)) string {
				if i%3 == 0 {
					part(fmt.Sprintf("%d.part", i))
				}
				time.Sleep(time.Duration(n-i) * time.Millisecond)
				mu.Lock()
				finished = append(finished, i)
				mu.Unlock()
				return fmt.Sprint(i)
			}
			var got, want []string
			readAll(n, workers, read, func(i int, r string) {
				if !strings.HasPrefix(r, fmt.Sprint(i)) {
					t.Errorf("result %q handed as source %d's", r, i)
				}
				got = append(got, r)
			})
			for i := range n {
				if i%3 == 0 {
					want = append(want, fmt.Sprintf("%d.part", i))
				}
				want = append(want, fmt.Sprint(i))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
			if workers > 1 && slices.IsSorted(finished) {
				t.Logf("the workers finished in order: %v", finished)
			}
		})
	}
}

// TestEachOrder checks that sessions come in the order of the inputs
// with one worker or many, when the first input is far the largest.
func TestEachOrder(t *testing.T) {
	files := map[string][]byte{}
	var calls []call
	for i := range 2000 {
		calls = append(calls, call{fmt.Sprintf("echo %d", i), strings.Repeat("x", 100), false})
	}
	files["00.jsonl"] = claude("big", day, calls...)
	var want []string
	dir := t.TempDir()
	want = append(want, filepath.Join(dir, "00.jsonl"))
	for i := 1; i < 30; i++ {
		name := fmt.Sprintf("%02d.jsonl", i)
		files[name] = session(name)
		want = append(want, filepath.Join(dir, name))
	}
	write(t, dir, files)
	got, msgs, err := run(t, Needs{Paths: []string{dir}})
	if err != nil || len(msgs) > 0 {
		t.Fatalf("Each = %v, %v", err, msgs)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sessions (-want +got):\n%s", diff)
	}
}

// TestRememberedSecret checks that a secret one input assigns is masked
// in a later input of the same run that only quotes its value, both in
// the report handed on and in the messages (which quote the file name
// here); and that a Redactor that
// does not remember does not carry it over, which shows what the first
// case tests.
func TestRememberedSecret(t *testing.T) {
	const secret = "Xq7hunter2Zp9"
	dir := write(t, t.TempDir(), map[string][]byte{
		"1-assign.jsonl": claude("one", day,
			call{"export DB_PASSWORD=" + secret, "", false}),
		"2-quote-" + secret + ".jsonl": append(claude("two", day,
			call{"psql -c 'select 1'", "FATAL: password authentication failed: " + secret, true}),
			[]byte("{not json "+secret+"\n")...),
	})
	key := redact.New(redact.Options{Key: []byte("test")})
	for _, tt := range []struct {
		name string
		red  *redact.Redactor
		show bool // the secret shows in the second input
	}{
		{"remembering", key.Remembering(), false},
		{"forgetting", key, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var texts []string
			n := Needs{Paths: []string{dir}, Redact: tt.red, Tell: func(m Message) { texts = append(texts, m.Text) }}
			err := Each(n, func(r *analyzer.SessionReport) {
				var quoted []string // what the report quotes of the transcript
				for _, f := range r.Failures {
					quoted = append(quoted, f.Message)
				}
				for _, c := range r.Session.Calls {
					quoted = append(quoted, c.Command, c.Output)
				}
				if r.Session.ID == "two" {
					texts = append(texts, quoted...)
				} else if s := strings.Join(quoted, "\n"); strings.Contains(s, secret) {
					t.Errorf("the first session shows the secret it assigns: %s", s)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, "FATAL") }) ||
				!slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, "invalid JSON") }) {
				t.Fatalf("the failure or the message is missing: %q", texts)
			}
			if shown := slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, secret) }); shown != tt.show {
				t.Errorf("secret shown: %v, want %v, in %q", shown, tt.show, texts)
			}
		})
	}
}

// TestLoadMasksEarlier checks that Load masks, once every input is read,
// a secret that an input quotes before a later input teaches it.
func TestLoadMasksEarlier(t *testing.T) {
	const secret = "Xq7hunter2Zp9"
	dir := write(t, t.TempDir(), map[string][]byte{
		"1-quote.jsonl":  claude("one", day, call{"psql", "FATAL: password authentication failed: " + secret, true}),
		"2-assign.jsonl": claude("two", day, call{"export DB_PASSWORD=" + secret, "", false}),
	})
	rep, err := Load(Needs{Paths: []string{dir}, Redact: redact.New(redact.Options{Key: []byte("test")}).Remembering()})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rep.Sessions)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "FATAL") {
		t.Fatalf("the failure is not in the report: %s", b)
	}
	if strings.Contains(string(b), secret) {
		t.Errorf("the report shows the secret: %s", b)
	}
}

// TestPeriod checks which sessions a period keeps, by their own times
// or, when they have none, their file's.
func TestPeriod(t *testing.T) {
	at := func(h int) time.Time { return day.Add(time.Duration(h) * time.Hour) }
	tests := []struct {
		name       string
		p          Period
		start, end time.Time
		mod        time.Time
		want       bool
	}{
		{"open", Period{}, at(0), at(1), time.Time{}, true},
		{"ended before since", Period{Since: at(2)}, at(0), at(1), time.Time{}, false},
		{"ends after since", Period{Since: at(1)}, at(0), at(2), time.Time{}, true},
		{"ends at since", Period{Since: at(1)}, at(0), at(1), time.Time{}, true},
		{"starts after until", Period{Until: at(1)}, at(2), at(3), time.Time{}, false},
		{"starts at until", Period{Until: at(1)}, at(1), at(3), time.Time{}, true},
		{"no end: judged by start", Period{Since: at(1)}, at(0), time.Time{}, time.Time{}, false},
		{"no times: judged by the file", Period{Since: at(1)}, time.Time{}, time.Time{}, at(0), false},
		{"no times: file recent", Period{Since: at(1)}, time.Time{}, time.Time{}, at(2), true},
		{"no times at all", Period{Since: at(1), Until: at(2)}, time.Time{}, time.Time{}, time.Time{}, true},
	}
	for _, tt := range tests {
		s := &parser.Session{Start: tt.start, End: tt.end}
		if got := tt.p.Holds(s, tt.mod); got != tt.want {
			t.Errorf("%s: Holds = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestParseTime checks the times --since and --until take.
func TestParseTime(t *testing.T) {
	now := day
	tests := []struct {
		in   string
		want time.Time
		err  bool
	}{
		{"", time.Time{}, false},
		{"2026-02-01", time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), false},
		{"2026-02-01T14:30", time.Date(2026, 2, 1, 14, 30, 0, 0, time.UTC), false},
		{"36h", now.Add(-36 * time.Hour), false},
		{"7d", now.Add(-7 * 24 * time.Hour), false},
		{"2w", now.Add(-14 * 24 * time.Hour), false},
		{"yesterday", time.Time{}, true},
		{"-3d", time.Time{}, true},
	}
	for _, tt := range tests {
		got, err := ParseTime(tt.in, now)
		if (err != nil) != tt.err || !got.Equal(tt.want) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// TestSince checks a run with a period: a session that ended before it
// is left out, and so, unread, is a file found in a folder that was last
// written before it; a run that keeps no session is not an error, but is
// said.
func TestSince(t *testing.T) {
	dir := write(t, t.TempDir(), map[string][]byte{
		"old.jsonl": claude("old", day.Add(-72*time.Hour), call{"ls", "a", false}),
		"new.jsonl": claude("new", day, call{"ls", "a", false}),
		"stale.txt": []byte("not a transcript, and never read\n"),
	})
	stale := filepath.Join(dir, "stale.txt")
	if err := os.Chtimes(stale, day.Add(-96*time.Hour), day.Add(-96*time.Hour)); err != nil {
		t.Fatal(err)
	}
	paths, msgs, err := run(t, Needs{Paths: []string{dir}, Period: Period{Since: day.Add(-24 * time.Hour)}})
	if err != nil || len(msgs) > 0 {
		t.Fatalf("Each = %v, %v", err, msgs)
	}
	if want := []string{filepath.Join(dir, "new.jsonl")}; !slices.Equal(paths, want) {
		t.Errorf("sessions %q, want %q", paths, want)
	}
	paths, msgs, err = run(t, Needs{Paths: []string{dir}, Period: Period{Since: day.Add(24 * time.Hour)}})
	if err != nil || len(paths) > 0 || len(msgs) != 1 || msgs[0].Lost || !strings.Contains(msgs[0].Text, "no session was active") {
		t.Errorf("a period after every session: Each = %v, sessions %q, messages %v", err, paths, msgs)
	}
}

// A recorder is a Progress that keeps what it is told.
type recorder struct {
	mu                sync.Mutex
	starts, files     int
	size, read, calls int64
}

func (r *recorder) Start(files int, size int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.starts++
	r.files, r.size = files, size
}

func (r *recorder) Read(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.read += int64(n)
}

func (r *recorder) FileDone() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
}

// TestProgress checks that a Progress is told, once, of the files and
// bytes to read, then of every byte read and every file done.
func TestProgress(t *testing.T) {
	files := map[string][]byte{"a.jsonl": session("a"), "b/c.jsonl": session("c"), "b/d.jsonl.gz": gzipped(t, session("d"))}
	dir := write(t, t.TempDir(), files)
	var size int64
	for _, b := range files {
		size += int64(len(b))
	}
	var r recorder
	if _, _, err := run(t, Needs{Paths: []string{dir}, Progress: &r}); err != nil {
		t.Fatal(err)
	}
	if r.starts != 1 || r.files != 3 || r.size != size || r.read != size || r.calls != 3 {
		t.Errorf("told of %d starts, %d files of %d bytes, %d bytes read, %d files done; want 1, 3 of %d, %d, 3",
			r.starts, r.files, r.size, r.read, r.calls, size, size)
	}
}

// TestLocations checks the agents' folders the environment names.
func TestLocations(t *testing.T) {
	env := map[string]string{"HOME": "/h", "CODEX_HOME": "/c", "CLAUDE_CONFIG_DIR": "/x, /y"}
	got := Locations(func(k string) string { return env[k] })
	want := []Location{
		{"Claude Code", "/x/projects"}, {"Claude Code", "/y/projects"},
		{"Codex CLI", "/c/sessions"}, {"Codex CLI", "/c/archived_sessions"},
		{"Gemini CLI", "/h/.gemini/tmp"},
		{"opencode", "/h/.local/share/opencode"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Locations (-want +got):\n%s", diff)
	}
}
