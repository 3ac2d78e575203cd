package parser

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestOpencodeDBHostile checks that a crafted database is read in bounded
// time and memory: only real tables are read, never views (a recursive one
// never ends) nor virtual tables nor columns computed as they are read (a
// printf of 500 MB per row), no value longer than a record is taken, and the
// whole read has a time limit. Each refusal names the file and the limit.
func TestOpencodeDBHostile(t *testing.T) {
	session := `CREATE TABLE session (id TEXT PRIMARY KEY)`
	message := `CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, data TEXT)`
	part := `CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, data TEXT)`
	tests := []struct {
		name   string
		schema []string
		setup  func() (restore func())
		want   string // the error; a regular expression when it holds a [
	}{
		{"recursive message view", []string{session, part,
			`CREATE VIEW message (id, session_id, data) AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r)
				SELECT 'msg_' || n, 'ses_1', '{}' FROM r`,
		}, nil, `read opencode.db: "message" is a view, not a table; only tables are read`},
		{"recursive session view", []string{message, part,
			`CREATE VIEW session (id) AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT 'ses_' || n FROM r`,
		}, nil, `read opencode.db: "session" is a view, not a table; only tables are read`},
		{"rows of printf", []string{session, part,
			`CREATE VIEW message (id, session_id, data) AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r WHERE n < 20)
				SELECT 'msg_' || n, 'ses_1', printf('%.*c', 500000000, 'x') FROM r`,
		}, nil, `read opencode.db: "message" is a view, not a table; only tables are read`},
		{"virtual table", []string{session, message,
			`CREATE VIRTUAL TABLE part USING fts5(id, message_id, data)`,
		}, nil, `read opencode.db: "part" is a virtual table; only tables are read`},
		{"generated column", []string{session, part,
			`CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, data TEXT AS (printf('%.*c', 500000000, 'x')) VIRTUAL)`,
		}, nil, `read opencode.db: table "message" computes its column "data" as it is read; only stored columns are read`},
		{"value past the limit", []string{session, message, part}, func() func() {
			n := maxDocument
			maxDocument = 1 << 10
			return func() { maxDocument = n }
		}, "opencode.db: a value larger than 1 KiB, the limit on one record; skipped"},
		{"time limit", []string{session, message, part}, func() func() {
			f := opencodeDBTime
			opencodeDBTime = func(int64) time.Duration { return time.Nanosecond }
			return func() { opencodeDBTime = f }
		}, `opencode.db: read for longer than 1ns, the limit for a database of [0-9.]+ KiB; skipped`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			db := openTestDB(t, "opencode.db")
			for _, q := range tt.schema {
				if _, err := db.Exec(q); err != nil {
					if strings.Contains(q, "VIRTUAL TABLE") {
						t.Skip("no such virtual table module here:", err)
					}
					t.Fatalf("%s: %v", q, err)
				}
			}
			for _, q := range []string{
				`INSERT INTO session VALUES ('ses_1')`,
				`INSERT INTO message VALUES ('msg_1', 'ses_1', '{"role":"assistant","text":"` + strings.Repeat("x", 2000) + `"}')`,
				`INSERT INTO part VALUES ('prt_1', 'msg_1', '{"type":"tool","tool":"bash","state":{"status":"completed"}}')`,
			} {
				db.Exec(q) // into the tables that are tables
			}
			db.Close()
			if tt.setup != nil {
				defer tt.setup()()
			}
			type result struct {
				sessions []*Session
				err      error
			}
			done := make(chan result, 1)
			go func() {
				sessions, err := ReadOpencodeData(".")
				done <- result{sessions, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("reading the database does not end")
			}
			if r.err == nil || r.err.Error() != tt.want && !(strings.Contains(tt.want, "[") && regexp.MustCompile("^"+tt.want+"$").MatchString(r.err.Error())) {
				t.Errorf("error = %v, want %s", r.err, tt.want)
			}
			var le *LimitError
			if strings.HasSuffix(tt.want, "; skipped") && !errors.As(r.err, &le) {
				t.Errorf("error %v is not a LimitError", r.err)
			}
			for _, s := range r.sessions {
				if len(s.Calls) > 0 {
					t.Errorf("session %s read with %d calls", s.ID, len(s.Calls))
				}
			}
		})
	}
}

// FuzzOpencodeDB checks that no database file makes the opencode reader
// panic or run on: whatever the bytes, reading ends within the time limit
// and gives sessions that marshal to JSON. The seeds are a database built
// from the storage sample, written as one file, and that file cut short.
func FuzzOpencodeDB(f *testing.F) {
	tmp := f.TempDir()
	extractTxtar(f, filepath.Join(opencodeStore, "storage.txtar"), tmp)
	path := filepath.Join(tmp, "seed", "opencode.db")
	buildOpencodeDB(f, path, filepath.Join(tmp, "storage"))
	db := openTestDB(f, path)
	mustExec(f, db, `PRAGMA wal_checkpoint(TRUNCATE)`)
	mustExec(f, db, `PRAGMA journal_mode = DELETE`)
	db.Close()
	seed, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	f.Add([]byte("SQLite format 3\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "opencode.db")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		done := make(chan []*Session, 1)
		go func() {
			IsOpencodeDB(path)
			sessions, _ := ReadOpencodeData(path)
			done <- sessions
		}()
		select {
		case sessions := <-done:
			for _, s := range sessions {
				if _, err := json.Marshal(s); err != nil {
					t.Fatalf("session %s does not marshal: %v", s.ID, err)
				}
			}
		case <-time.After(time.Minute):
			t.Fatal("reading the database does not end")
		}
	})
}
