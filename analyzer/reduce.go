package analyzer

import (
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/retrace-dev/retrace/parser"
)

// retrace's JSONL output is its interchange format: shards of transcripts
// analysed on many machines merge into one report when `retrace lessons`
// and `retrace bench` read the `pairs` and `bench` records the shards
// wrote. This file reads them back.

// IsRecord reports whether line is a record of retrace's own JSONL output
// that ReadJSONL reads: a failure chain of `retrace pairs` or a number of
// `retrace bench`.
func IsRecord(line []byte) bool {
	if !json.Valid(line) {
		return false
	}
	r := gjson.ParseBytes(line)
	if !r.IsObject() || !r.Get("session.path").Exists() {
		return false
	}
	return isChain(r) || isBench(r)
}

func isChain(r gjson.Result) bool { return r.Get("failure").IsObject() && r.Get("retries").Exists() }

func isBench(r gjson.Result) bool {
	return r.Get("call_id").Exists() && r.Get("label").Exists() && r.Get("value").Exists()
}

// UnmarshalJSON reads a chain as `retrace pairs` writes it. The record
// holds the chain's first failure only, so the chain read back knows no
// other: lessons drawn from it take the first failure's rejected flags.
func (ch *Chain) UnmarshalJSON(b []byte) error {
	type plain Chain // without this method
	if err := json.Unmarshal(b, (*plain)(ch)); err != nil {
		return err
	}
	if ch.Failure == nil {
		return errors.New("a chain without its failure")
	}
	ch.failures = []*Failure{ch.Failure}
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

// invalidJSON says why json.Valid finds line invalid: its nesting, deeper
// than encoding/json reads (10 000 levels), or its syntax. json.Valid is
// used rather than gjson.Valid, which recurses without a limit: a stack
// overflow cannot be recovered from.
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
	if !json.Valid(line) {
		return invalidJSON(line)
	}
	r := gjson.ParseBytes(line)
	var ref SessionRef
	if err := json.Unmarshal([]byte(r.Get("session").Raw), &ref); err != nil || ref.Path == "" {
		return "not a record of retrace pairs or bench: no session"
	}
	rep := bySession[ref]
	if rep == nil {
		rep = &SessionReport{Session: &parser.Session{Path: ref.Path, Format: ref.Format, ID: ref.ID}}
		bySession[ref] = rep
		*reports = append(*reports, rep)
	}
	switch {
	case isChain(r):
		var ch Chain
		if err := json.Unmarshal(line, &ch); err != nil {
			return "bad pairs record: " + err.Error()
		}
		rep.Chains = append(rep.Chains, &ch)
		rep.Failures = append(rep.Failures, ch.Failure)
	case isBench(r):
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
