package pipeline

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/retrace-dev/retrace/parser"
)

// A Period is the span of time sessions are kept from (--since and
// --until); a zero bound is open.
type Period struct {
	Since, Until time.Time
}

// IsZero reports whether p keeps every session.
func (p Period) IsZero() bool { return p.Since.IsZero() && p.Until.IsZero() }

// Holds reports whether a session was active in the period. A session
// without times is judged by its file's modification time.
func (p Period) Holds(s *parser.Session, modTime time.Time) bool {
	start, end := s.Start, s.End
	if start.IsZero() {
		start = modTime
	}
	if end.IsZero() {
		end = start
	}
	if !p.Since.IsZero() && !end.IsZero() && end.Before(p.Since) {
		return false
	}
	return p.Until.IsZero() || start.IsZero() || !start.After(p.Until)
}

// ParseTime reads a time as --since takes it: a date, a date and time (UTC
// unless it names a zone), or a span back from now in hours, days or weeks.
// The empty string gives the zero time.
func ParseTime(s string, now time.Time) (time.Time, error) {
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
