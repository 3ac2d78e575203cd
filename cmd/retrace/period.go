package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/retrace-dev/retrace/parser"
)

// A period is the span of time --since and --until pick sessions from; a
// zero bound is open.
type period struct {
	since, until time.Time
}

func (p period) isZero() bool { return p.since.IsZero() && p.until.IsZero() }

// holds reports whether a session was active in the period. A session
// without times is judged by its file's modification time.
func (p period) holds(s *parser.Session, modTime time.Time) bool {
	start, end := s.Start, s.End
	if start.IsZero() {
		start = modTime
	}
	if end.IsZero() {
		end = start
	}
	if !p.since.IsZero() && !end.IsZero() && end.Before(p.since) {
		return false
	}
	return p.until.IsZero() || start.IsZero() || !start.After(p.until)
}

// period reads --since and --until.
func (in *inputs) period(now time.Time) (period, error) {
	var p period
	var err error
	if p.since, err = parseWhen(in.Since, now); err != nil {
		return p, usageError("--since: " + err.Error())
	}
	if p.until, err = parseWhen(in.Until, now); err != nil {
		return p, usageError("--until: " + err.Error())
	}
	if !p.since.IsZero() && !p.until.IsZero() && p.until.Before(p.since) {
		return p, usageError("--until is before --since")
	}
	return p, nil
}

// parseWhen reads a time as --since takes it: a date, a date and time (UTC
// unless it names a zone), or a span back from now in hours, days or weeks.
func parseWhen(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	unit := map[byte]time.Duration{'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour, 'm': time.Minute}
	if n, err := strconv.Atoi(s[:len(s)-1]); err == nil && n >= 0 && unit[s[len(s)-1]] != 0 {
		return now.Add(-time.Duration(n) * unit[s[len(s)-1]]), nil
	}
	return time.Time{}, fmt.Errorf("%q is not a date (2026-03-01), a date and time (2026-03-01T14:00) or a span (36h, 7d, 2w)", strings.TrimSpace(s))
}
