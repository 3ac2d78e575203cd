package guard

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/parser"
)

// A Tracker reads the transcripts of running sessions for the guard, each
// only as far as it is new: it keeps a small state per transcript, keyed
// by its path and checked against its size, time and first bytes, in a
// folder of its own. What a state holds is the lessons and fixes found so
// far, and where the part of the transcript that can still change them
// begins: the first call of the earliest failure chain that is still open
// (not fixed, and fewer than analyzer.Lookahead calls past its last
// attempt), or of a call still waiting for its result, or else the last
// call. Each read parses that part and what was appended after it.
//
// Claude Code and Codex CLI transcripts are JSON Lines that only grow: a
// read stops at the end of the last whole line, so a record being written
// is left for the next read. Other formats (a Gemini CLI session is one
// JSON document, rewritten as it grows) are read whole each time they
// change.
type Tracker struct {
	Dir string
}

// Found is what a transcript teaches: its lessons and its fixes, earliest
// first.
type Found struct {
	Lessons []Lesson `json:"lessons"`
	Fixes   []Fix    `json:"fixes"`
}

// state is what a Tracker keeps of one transcript.
type state struct {
	Path    string    `json:"path"`
	Format  string    `json:"format"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mod_time"`
	// Head is the first bytes of the transcript, which must not change.
	Head []byte `json:"head"`
	// Read is where the last read ended: after the last whole line.
	Read int64 `json:"read"`
	// Start is where the part that can still change begins; Anchor is
	// the id of the call there and AnchorMsg its msg, which numbers the
	// messages of that part.
	Start     int64  `json:"start"`
	Anchor    string `json:"anchor"`
	AnchorMsg int    `json:"anchor_msg"`
	// Closed holds what the transcript before Start taught; Open what the
	// part from Start on taught when last read.
	Closed Found `json:"closed"`
	Open   Found `json:"open"`
}

// headSize is how many first bytes of a transcript its state keeps.
const headSize = 256

// appending lists the formats whose transcripts only grow, line by line.
var appending = []string{"claude-code", "codex"}

// Session returns what the transcript at path teaches so far.
func (t Tracker) Session(path string) (Found, error) {
	f, err := os.Open(path)
	if err != nil {
		return Found{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Found{}, err
	}
	switch {
	case !fi.Mode().IsRegular():
		return Found{}, fmt.Errorf("%s is not a file", path)
	case fi.Size() == 0:
		return Found{}, nil // a session that has only just begun
	}
	st := t.load(path)
	head := make([]byte, min(fi.Size(), headSize))
	if _, err := io.ReadFull(f, head); err != nil {
		return Found{}, err
	}
	switch {
	case st.Size == fi.Size() && st.ModTime.Equal(fi.ModTime()) && bytes.Equal(st.Head, head):
		return st.found(), nil
	case fi.Size() < st.Read || !bytes.HasPrefix(head, st.Head) || st.Format == "":
		st = state{Path: path}
	}
	if st.Format == "" {
		fm, err := detect(f)
		if err != nil {
			return Found{}, fmt.Errorf("%s: %w", path, err)
		}
		st.Format = fm
	}
	if err := st.read(f, fi.Size()); err != nil {
		if st.Start == 0 {
			return Found{}, fmt.Errorf("read %s: %w", path, err)
		}
		// The part kept is not what it was: read the transcript anew.
		st = state{Path: path, Format: st.Format}
		if err := st.read(f, fi.Size()); err != nil {
			return Found{}, fmt.Errorf("read %s: %w", path, err)
		}
	}
	st.Size, st.ModTime, st.Head = fi.Size(), fi.ModTime(), head
	// A state that cannot be saved costs the next call a longer read.
	_ = t.save(&st)
	return st.found(), nil
}

// found returns what the state knows, earliest first.
func (st *state) found() Found {
	closed := Found{Lessons: slices.Clone(st.Closed.Lessons), Fixes: slices.Clone(st.Closed.Fixes)}
	return merge(closed, st.Open)
}

// detect names the format of the transcript f.
func detect(f *os.File) (string, error) {
	head := make([]byte, parser.HeadSize)
	n, err := f.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return "", err
	}
	fm := parser.Detect(head[:n])
	if fm == nil {
		return "", errors.New("not a transcript retrace reads")
	}
	return fm.Name, nil
}

// read reads the transcript f of size bytes from st.Start on, and updates
// st with what it found.
func (st *state) read(f *os.File, size int64) error {
	end := size
	grows := slices.Contains(appending, st.Format)
	if grows {
		var err error
		if end, err = lastLineEnd(f, st.Start, size); err != nil {
			return err
		}
	} else {
		st.Start, st.Anchor, st.Closed = 0, "", Found{}
	}
	lines := &lineReader{r: io.NewSectionReader(f, st.Start, end-st.Start)}
	s, rep, err := analyze(lines, st.Path, parser.Lookup(st.Format))
	if err != nil {
		return err
	}
	delta := 0
	if st.Anchor != "" {
		i := slices.IndexFunc(s.Calls, func(c *parser.Call) bool { return c.ID == st.Anchor })
		if i < 0 {
			return fmt.Errorf("the call %s at byte %d is not there any more", st.Anchor, st.Start)
		}
		delta = st.AnchorMsg - s.Calls[i].Msg
	}
	st.Read = end
	if !grows || len(s.Calls) == 0 {
		st.Open.Lessons, st.Open.Fixes = Draw(rep, delta)
		return nil
	}
	k := openFrom(rep)
	before, after := split(rep, k)
	closed := Found{}
	closed.Lessons, closed.Fixes = Draw(before, delta)
	st.Closed = merge(st.Closed, closed)
	st.Open.Lessons, st.Open.Fixes = Draw(after, delta)
	c := s.Calls[k]
	st.Start += lines.offset(c.Pos.Line)
	st.Anchor, st.AnchorMsg = c.ID, c.Msg+delta
	return nil
}

// analyze reads a transcript in format fm from r and analyzes its calls,
// each as soon as the decoder is done with it, on another core than the
// decoding's.
func analyze(r io.Reader, name string, fm *parser.Format) (*parser.Session, *analyzer.SessionReport, error) {
	stream := analyzer.NewSessionStream(analyzer.StreamOptions{NoNumbers: true})
	calls := make(chan *parser.Call, 256)
	done := make(chan struct{})
	var failed error
	go func() {
		defer close(done)
		// A panic that left this goroutine would end the process with
		// exit status 2, which blocks the agent's call.
		defer func() {
			if r := recover(); r != nil {
				failed = fmt.Errorf("internal error: %v", r)
				for range calls {
				}
			}
		}()
		for c := range calls {
			stream.Add(c)
		}
	}()
	s, err := parser.Parse(r, name, fm, parser.Each(func(c *parser.Call) { calls <- c }))
	close(calls)
	<-done
	if err = cmp.Or(err, failed); err != nil {
		return nil, nil, err
	}
	return s, stream.Report(s), nil
}

// openFrom returns the index of the first call of the report's session
// that what is appended later can still change: the earliest call still
// waiting for its result, or first call of a chain still open (each within
// analyzer.Lookahead calls of the end), or else the last call; moved back
// to the first call of any chain that reaches it, since a result still to
// come may change what the chain's fix did.
func openFrom(rep *analyzer.SessionReport) int {
	calls := rep.Session.Calls
	last := len(calls) - 1
	index := make(map[string]int, len(calls))
	for i, c := range calls {
		index[c.ID] = i
	}
	k := last
	for i := max(0, last-analyzer.Lookahead); i < k; i++ {
		if s := calls[i].Status; s == parser.StatusNoResult || s == parser.StatusRunning {
			k = i
			break
		}
	}
	type span struct{ first, end int }
	var spans []span
	for _, ch := range rep.Chains {
		fs := ch.Failures()
		if len(fs) == 0 {
			continue
		}
		sp := span{index[ch.Failure.CallID], index[fs[len(fs)-1].CallID]}
		switch {
		case ch.Fix != nil:
			sp.end = index[ch.Fix.CallID]
		case last-sp.end < analyzer.Lookahead:
			sp.end = last // still open
		}
		spans = append(spans, sp)
	}
	for moved := true; moved; {
		moved = false
		for _, sp := range spans {
			if sp.first < k && sp.end >= k {
				k, moved = sp.first, true
			}
		}
	}
	return k
}

// split parts the chains of rep: those whose first failure comes before
// the call of index k, and the others.
func split(rep *analyzer.SessionReport, k int) (before, after *analyzer.SessionReport) {
	first := make(map[string]bool, k)
	for _, c := range rep.Session.Calls[:k] {
		first[c.ID] = true
	}
	before = &analyzer.SessionReport{Session: rep.Session}
	after = &analyzer.SessionReport{Session: rep.Session}
	for _, ch := range rep.Chains {
		if first[ch.Failure.CallID] {
			before.Chains = append(before.Chains, ch)
		} else {
			after.Chains = append(after.Chains, ch)
		}
	}
	return before, after
}

// merge adds to a what b holds that a does not: a lesson is kept once,
// where it was first learned; a fix of the same failure replaces the one
// before, as the context names the latest.
func merge(a, b Found) Found {
	for _, l := range b.Lessons {
		if !slices.ContainsFunc(a.Lessons, func(x Lesson) bool {
			return x.Target == l.Target && x.Kind == l.Kind && x.Wrong == l.Wrong && x.Right == l.Right
		}) {
			a.Lessons = append(a.Lessons, l)
		}
	}
	for _, f := range b.Fixes {
		a.Fixes = slices.DeleteFunc(a.Fixes, func(x Fix) bool {
			return x.Target == f.Target && x.Category == f.Category && x.Message == f.Message && slices.Equal(x.BadFlags, f.BadFlags)
		})
		a.Fixes = append(a.Fixes, f)
	}
	return a
}

// lastLineEnd returns the offset just past the last newline of f between
// from and size, or from when there is none.
func lastLineEnd(f *os.File, from, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for end := size; end > from; {
		n := min(int64(len(buf)), end-from)
		if _, err := f.ReadAt(buf[:n], end-n); err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return end - n + int64(i) + 1, nil
		}
		end -= n
	}
	return from, nil
}

// A lineReader reads r and notes where each line starts.
type lineReader struct {
	r      io.Reader
	n      int64
	starts []int64 // starts[i] is the offset of line i+2
}

func (lr *lineReader) Read(b []byte) (int, error) {
	n, err := lr.r.Read(b)
	for i := 0; i < n; {
		j := bytes.IndexByte(b[i:n], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		lr.starts = append(lr.starts, lr.n+int64(i))
	}
	lr.n += int64(n)
	return n, err
}

// offset returns the offset of the 1-based line.
func (lr *lineReader) offset(line int) int64 {
	if line <= 1 || line-2 >= len(lr.starts) {
		return 0
	}
	return lr.starts[line-2]
}

// statePath returns the file of the state of the transcript at path.
func (t Tracker) statePath(path string) string {
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(t.Dir, hex.EncodeToString(sum[:16])+".json")
}

// load returns the state kept for the transcript at path, or an empty one.
func (t Tracker) load(path string) state {
	var st state
	b, err := os.ReadFile(t.statePath(path))
	if err != nil || json.Unmarshal(b, &st) != nil || st.Path != path {
		return state{Path: path}
	}
	return st
}

// save keeps st.
func (t Tracker) save(st *state) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return writeFile(t.statePath(st.Path), b, 0o600)
}
