package analyzer

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/retrace-dev/retrace/parser"
	"github.com/retrace-dev/retrace/shell"
)

// retrace's JSONL output is its interchange format: shards of transcripts
// analysed on many machines merge into one report when `retrace lessons`
// and `retrace bench` read the `pairs` and `bench` records the shards
// wrote. This file reads them back.

// IsRecord reports whether line is a record of retrace's own JSONL output
// that ReadJSONL reads: a failure chain of `retrace pairs` or a number of
// `retrace bench`. It is asked of the first line of every input, which
// may be a long transcript record: a line without the member name
// "session", or without "path", is known to be none without decoding it,
// unless it holds a \u escape, which could spell them (FuzzIsRecord holds
// this to decoding every line).
func IsRecord(line []byte) bool {
	if !bytes.Contains(line, []byte(`\u`)) && (!bytes.Contains(line, []byte(`"session"`)) || !bytes.Contains(line, []byte(`"path"`))) {
		return false
	}
	return isRecord(line)
}

// isRecord is IsRecord without the quick look.
func isRecord(line []byte) bool {
	m, err := members(line)
	if err != nil {
		return false
	}
	session, err := members(m["session"])
	if err != nil {
		return false
	}
	_, hasPath := session["path"]
	return hasPath && recordKind(m) != ""
}

// members returns the members of the JSON object in b, their values raw,
// by their names as written; an error when b is not a valid object.
func members(b []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("null")
	}
	return m, nil
}

// recordKind says what record the members of a line make: "chain" for a
// failure chain (a failure object and retries), "bench" for a number (a
// call id, a label and a value), "" for neither.
func recordKind(m map[string]json.RawMessage) string {
	has := func(names ...string) bool {
		for _, n := range names {
			if _, ok := m[n]; !ok {
				return false
			}
		}
		return true
	}
	switch {
	case bytes.HasPrefix(m["failure"], []byte("{")) && has("retries"):
		return "chain"
	case has("call_id", "label", "value"):
		return "bench"
	}
	return ""
}

// readBack completes a chain read back from its record as `retrace pairs`
// writes it. The record holds the chain's first failure only, so the
// chain read back knows no other: lessons drawn from it take the first
// failure's rejected flags. The steps' programs, not in the record, are
// read from their commands.
func (ch *Chain) readBack() error {
	if ch.Failure == nil {
		return errors.New("a chain without its failure")
	}
	ch.failures = []*Failure{ch.Failure}
	for i := range ch.Between {
		st := &ch.Between[i]
		st.program = programOfLine(shell.Parse(st.Command), st.Command)
	}
	if w := ch.Workaround; w != nil {
		w.program = workaroundProgram(ch.Failure, shell.Parse(ch.Failure.Command), shell.Parse(w.Command), w.Command)
	}
	return nil
}

// ReadJSONL reads records of `retrace pairs` and `retrace bench` JSONL
// output from r, named name in messages, into one report per session they
// name, in the order the sessions first appear. A line that is not such a
// record is skipped: the first parser.MaxSkipped are returned as
// SyntaxErrors, and the others counted in more. Lines are read as the
// parser reads JSON Lines, up to parser.MaxRecord long; only an error
// reading r stops it early.
func ReadJSONL(r io.Reader, name string) (reports []*SessionReport, skipped []*parser.SyntaxError, more int, err error) {
	bySession := map[SessionRef]*SessionReport{}
	skipped, more, err = parser.EachLine(r, name, func(line []byte, _ int) string {
		return addRecord(line, bySession, &reports)
	})
	return reports, skipped, more, err
}

// invalidJSON says why line is not valid JSON: its nesting, deeper than
// encoding/json reads (10 000 levels), or its syntax.
func invalidJSON(line []byte) string {
	var se *json.SyntaxError
	if err := json.Unmarshal(line, &struct{}{}); errors.As(err, &se) && strings.HasSuffix(se.Error(), "exceeded max depth") {
		return "invalid JSON: nested more than 10000 levels deep"
	}
	return "invalid JSON"
}

// addRecord adds one record to the report of its session, and says what is
// wrong with it, or "".
func addRecord(line []byte, bySession map[SessionRef]*SessionReport, reports *[]*SessionReport) string {
	m, err := members(line)
	if _, bad := err.(*json.SyntaxError); bad {
		return invalidJSON(line)
	}
	var ref SessionRef
	if err := json.Unmarshal(m["session"], &ref); err != nil || ref.Path == "" {
		return "not a record of retrace pairs or bench: no session"
	}
	rep := bySession[ref]
	if rep == nil {
		rep = &SessionReport{Session: &parser.Session{Path: ref.Path, Format: ref.Format, ID: ref.ID}}
		bySession[ref] = rep
		*reports = append(*reports, rep)
	}
	switch recordKind(m) {
	case "chain":
		var ch Chain
		err := json.Unmarshal(line, &ch)
		if err == nil {
			err = ch.readBack()
		}
		if err != nil {
			return "bad pairs record: " + err.Error()
		}
		rep.Chains = append(rep.Chains, &ch)
		rep.Failures = append(rep.Failures, ch.Failure)
	case "bench":
		var b Bench
		if err := json.Unmarshal(line, &b); err != nil {
			return "bad bench record: " + err.Error()
		}
		rep.Benchmarks = append(rep.Benchmarks, &b)
	default:
		return "not a record of retrace pairs or bench"
	}
	return ""
}
