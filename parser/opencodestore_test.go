package parser

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/retrace-dev/retrace/parser/internal/rawjson"
)

// The samples of opencode's storage are txtar archives, each of a data
// folder: a folder of folders under testdata/ would be taken for a
// transcript by the tests that read every file there.
var opencodeStore = filepath.Join("..", "testdata", "opencode-storage")

// extractTxtar writes the files of the archive file into dir.
func extractTxtar(t testing.TB, file, dir string) {
	t.Helper()
	a, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range a.Files {
		name := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sampleFolder lays out the sample archive case as a data folder named
// "opencode" in a new temporary directory, which becomes the working
// directory: positions then read "opencode/storage/…".
func sampleFolder(t *testing.T, name string) string {
	t.Helper()
	tmp := t.TempDir()
	extractTxtar(t, filepath.Join(opencodeStore, name+".txtar"), filepath.Join(tmp, "opencode"))
	golden := filepath.Join(opencodeStore, name)
	if !filepath.IsAbs(golden) {
		wd, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		golden = filepath.Join(wd, golden)
	}
	t.Chdir(tmp)
	return golden
}

func dumpSessions(t *testing.T, sessions []*Session) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sessions); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestOpencodeStore reads the JSON storage samples and compares the sessions
// with their golden dumps.
func TestOpencodeStore(t *testing.T) {
	for _, name := range []string{"storage", "project"} {
		t.Run(name, func(t *testing.T) {
			base := sampleFolder(t, name)
			if !IsOpencodeData("opencode") {
				t.Errorf("IsOpencodeData(%s) = false", name)
			}
			sessions, err := ReadOpencodeData("opencode")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, base+".golden", dumpSessions(t, sessions))
		})
	}
}

// TestOpencodeDB reads a database built from the era B sample and compares
// the sessions with their golden dump.
func TestOpencodeDB(t *testing.T) {
	tmp := t.TempDir()
	extractTxtar(t, filepath.Join(opencodeStore, "storage.txtar"), tmp)
	want, err := filepath.Abs(filepath.Join(opencodeStore, "storage-db.golden"))
	if err != nil {
		t.Fatal(err)
	}
	buildOpencodeDB(t, filepath.Join(tmp, "opencode", "opencode.db"), filepath.Join(tmp, "storage"))
	t.Chdir(tmp)
	if !IsOpencodeData("opencode") || !IsOpencodeData("opencode/opencode.db") {
		t.Error("IsOpencodeData does not take a folder with opencode.db, or the file itself")
	}
	sessions, err := ReadOpencodeData("opencode")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, want, dumpSessions(t, sessions))
}

// TestOpencodeDataSame checks that the JSON storage and a database of the
// same content give the same sessions and calls, positions aside.
func TestOpencodeDataSame(t *testing.T) {
	tmp := t.TempDir()
	files := filepath.Join(tmp, "files")
	extractTxtar(t, filepath.Join(opencodeStore, "storage.txtar"), files)
	db := filepath.Join(tmp, "db", "opencode.db")
	buildOpencodeDB(t, db, filepath.Join(files, "storage"))

	fromFiles, err := ReadOpencodeData(files)
	if err != nil {
		t.Fatal(err)
	}
	fromDB, err := ReadOpencodeData(db)
	if err != nil {
		t.Fatal(err)
	}
	// Only the JSON files miss folders, and say so.
	if got := notesOf(fromDB); len(got) != 1 || !strings.HasPrefix(got[0], "subagent session") {
		t.Errorf("notes of the database's sessions = %q, want only the subagent's", got)
	}
	if len(fromFiles) != 3 || len(fromDB) != 3 {
		t.Fatalf("got %d sessions from the files and %d from the database, want 3", len(fromFiles), len(fromDB))
	}
	for i := range fromFiles {
		a, b := comparable(fromFiles[i]), comparable(fromDB[i])
		if diff := cmp.Diff(a, b); diff != "" {
			t.Errorf("session %s (-files +database):\n%s", fromFiles[i].ID, diff)
		}
	}
	if len(fromFiles[2].Skipped) != 1 || len(fromDB[2].Skipped) != 1 || fromFiles[2].Skipped[0].Msg != fromDB[2].Skipped[0].Msg {
		t.Errorf("skipped: files %v, database %v; want the same one record", fromFiles[2].Skipped, fromDB[2].Skipped)
	}
}

func notesOf(sessions []*Session) []string {
	var notes []string
	for _, s := range sessions {
		notes = append(notes, s.Notes...)
	}
	return notes
}

// comparable returns a copy of s without what depends on where it was read:
// its path, positions, notes and skipped records.
func comparable(s *Session) Session {
	c := *s
	c.Path, c.Notes, c.Skipped = "", nil, nil
	c.Calls = nil
	for _, call := range s.Calls {
		cc := *call
		cc.Pos = Pos{}
		c.Calls = append(c.Calls, &cc)
	}
	return c
}

// TestOpencodeDataCopies checks that a session kept both in storage/ and in
// the database is read once, from the copy updated last, and that sessions
// of either alone are read too.
func TestOpencodeDataCopies(t *testing.T) {
	dir := t.TempDir()
	extractTxtar(t, filepath.Join(opencodeStore, "storage.txtar"), dir)
	extractTxtar(t, filepath.Join(opencodeStore, "project.txtar"), dir)
	db := filepath.Join(dir, "opencode.db")
	buildOpencodeDB(t, db, filepath.Join(dir, "storage"))
	// The import is older than the files for the child session only.
	conn := openTestDB(t, db)
	mustExec(t, conn, `UPDATE session SET time_updated = 1 WHERE id = 'ses_4f1e2d3b0ffeChildExplore1'`)
	mustExec(t, conn, `DELETE FROM part WHERE message_id IN (SELECT id FROM message WHERE session_id = 'ses_4f1e2d3c4ffeMainSession01') AND id > 'prt_c9f1a005'`)
	conn.Close()

	sessions, err := ReadOpencodeData(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sessions {
		from := "?"
		switch {
		case len(s.Calls) == 0:
			from = "-"
		case strings.Contains(s.Calls[0].Pos.File, "opencode.db#"):
			from = "db"
		case strings.Contains(s.Calls[0].Pos.File, "storage/part"):
			from = "storage"
		case strings.Contains(s.Calls[0].Pos.File, "storage/session/part"):
			from = "project"
		}
		got = append(got, s.ID+" "+from)
	}
	want := []string{
		"ses_5a0c1000e0ffLegacyV1Sess1 -",
		"ses_5a0c0ffee0ffLegacyV2Sess1 project",
		"ses_4f1e3000affeNoMessages01 -",
		"ses_4f1e2d3c4ffeMainSession01 db",
		"ses_4f1e2d3b0ffeChildExplore1 storage",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sessions and where they were read (-want +got):\n%s", diff)
	}
	if n := len(sessions[3].Calls); n != 5 {
		t.Errorf("the database's copy of the main session has %d calls, want 5", n)
	}
}

// TestOpencodeDBReadOnly proves that reading a database changes neither its
// file nor its -wal file, whether opencode has it open or not.
func TestOpencodeDBReadOnly(t *testing.T) {
	tmp := t.TempDir()
	extractTxtar(t, filepath.Join(opencodeStore, "storage.txtar"), tmp)
	dir := filepath.Join(tmp, "opencode")
	db := filepath.Join(dir, "opencode.db")
	buildOpencodeDB(t, db, filepath.Join(tmp, "storage"))
	old := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)

	t.Run("closed", func(t *testing.T) {
		// As opencode leaves it: WAL mode, no -wal or -shm file.
		if err := os.Chtimes(db, old, old); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, dir)
		sessions, err := ReadOpencodeData(dir)
		if err != nil || len(sessions) != 3 {
			t.Fatalf("read %d sessions, error %v; want 3", len(sessions), err)
		}
		if diff := cmp.Diff(before, snapshot(t, dir)); diff != "" {
			t.Errorf("reading changed the folder (-before +after):\n%s", diff)
		}
	})

	t.Run("open", func(t *testing.T) {
		// opencode running: its last transaction is only in the -wal file.
		w := openTestDB(t, db)
		defer w.Close()
		mustExec(t, w, `PRAGMA wal_autocheckpoint = 0`)
		mustExec(t, w, `INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)
			VALUES ('ses_4f1e2000affeStillRunning', '9c1f0e2d3b7a', 's', '/home/dev/shop', 'Running', '1.2.3', 1769800000000, 1769800000000)`)
		mustExec(t, w, `INSERT INTO message (id, session_id, time_created, time_updated, data)
			VALUES ('msg_d0000001aaaaA1', 'ses_4f1e2000affeStillRunning', 1769800000000, 1769800000000, '{"role":"assistant"}')`)
		mustExec(t, w, `INSERT INTO part (id, message_id, session_id, time_created, time_updated, data)
			VALUES ('prt_d0000001aaaa01', 'msg_d0000001aaaaA1', 'ses_4f1e2000affeStillRunning', 1769800000000, 1769800000000,
			'{"type":"tool","callID":"toolu_x","tool":"bash","state":{"status":"completed","input":{"command":"make"},"output":"","metadata":{"exit":2}}}')`)
		for _, f := range []string{db, db + "-wal"} {
			if err := os.Chtimes(f, old, old); err != nil {
				t.Fatal(err)
			}
		}
		before := snapshot(t, dir)
		sessions, err := ReadOpencodeData(dir)
		if err != nil {
			t.Fatal(err)
		}
		last := sessions[len(sessions)-1]
		if last.ID != "ses_4f1e2000affeStillRunning" || len(last.Calls) != 1 || *last.Calls[0].Exit != 2 {
			t.Errorf("the session only in the -wal file was not read: last session %s", last.ID)
		}
		after := snapshot(t, dir)
		// SQLite keeps its readers' marks in the -shm index.
		delete(before, "opencode.db-shm")
		delete(after, "opencode.db-shm")
		if diff := cmp.Diff(before, after); diff != "" {
			t.Errorf("reading changed the database (-before +after):\n%s", diff)
		}
	})
}

// snapshot returns the content, size and time of every file in dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := make(map[string]string)
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = fmt.Sprintf("%d bytes, %x, mtime %s", fi.Size(), sha256.Sum256(data), fi.ModTime().Format(time.RFC3339Nano))
	}
	return m
}

// TestOpencodeDBSchema checks databases of other versions: missing optional
// columns are read around, missing needed ones are named in the error.
func TestOpencodeDBSchema(t *testing.T) {
	tests := []struct {
		name   string
		schema []string
		want   string // error, or "" for none
	}{
		{"oldest", []string{
			`CREATE TABLE session (id TEXT PRIMARY KEY)`,
			`CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, data TEXT)`,
			`CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, data TEXT)`,
		}, ""},
		{"no part data", []string{
			`CREATE TABLE session (id TEXT PRIMARY KEY, title TEXT)`,
			`CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, data TEXT)`,
			`CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, content TEXT)`,
		}, `read opencode.db: table "part" has no column "data": an opencode database of a version this reader does not know`},
		{"no message table", []string{
			`CREATE TABLE session (id TEXT PRIMARY KEY, title TEXT)`,
			`CREATE TABLE session_message (id TEXT PRIMARY KEY, session_id TEXT, data TEXT)`,
		}, `read opencode.db: no table "message": not an opencode database, or of a version this reader does not know`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			db := openTestDB(t, "opencode.db")
			for _, q := range tt.schema {
				mustExec(t, db, q)
			}
			if tt.want == "" {
				mustExec(t, db, `INSERT INTO session VALUES ('ses_1')`)
				mustExec(t, db, `INSERT INTO message VALUES ('msg_2', 'ses_1', '{"role":"assistant"}'), ('msg_1', 'ses_1', 'not json')`)
				mustExec(t, db, `INSERT INTO part VALUES ('prt_1', 'msg_1', '{"type":"tool","tool":"bash","state":{"status":"completed"}}'),
					('prt_2', 'msg_2', '{"type":"tool","tool":"read","state":{"status":"error"}}'), ('prt_3', 'msg_2', '[]')`)
			}
			db.Close()
			sessions, err := ReadOpencodeData(".")
			if tt.want != "" {
				if err == nil || err.Error() != tt.want {
					t.Errorf("error = %v, want %s", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s := sessions[0]
			var got []string
			for _, c := range s.Calls {
				got = append(got, fmt.Sprintf("msg %d %s %s %s", c.Msg, c.Tool, c.Status, c.Pos))
			}
			for _, e := range s.Skipped {
				got = append(got, e.Error())
			}
			want := []string{
				"msg 0 bash completed opencode.db#part/prt_1",
				"msg 1 read error opencode.db#part/prt_2",
				"opencode.db#message/msg_1: invalid JSON: invalid character 'o' in literal null (expecting 'u')",
				"opencode.db#part/prt_3: record is not a JSON object",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("calls and skipped records (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOpencodeDBNotADatabase(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "opencode.db"), []byte("not sqlite at all, but long enough to have a header"), 0o644); err != nil {
		t.Fatal(err)
	}
	extractTxtar(t, filepath.Join(opencodeStore, "storage.txtar"), dir)
	sessions, err := ReadOpencodeData(dir)
	if err == nil || !strings.Contains(err.Error(), "opencode.db") || !strings.Contains(err.Error(), "not a database") {
		t.Errorf("error = %v, want one naming opencode.db and saying it is not a database", err)
	}
	if len(sessions) != 3 {
		t.Errorf("read %d sessions from storage/, want 3 despite the bad database", len(sessions))
	}
}

// TestOpencodeDBPath reads a database in a folder whose name a URI would
// take for its query or fragment.
func TestOpencodeDBPath(t *testing.T) {
	tmp := t.TempDir()
	extractTxtar(t, filepath.Join(opencodeStore, "storage.txtar"), tmp)
	dir := filepath.Join(tmp, "a b#c?d%20e&mode=rw")
	buildOpencodeDB(t, filepath.Join(dir, "opencode-dev.db"), filepath.Join(tmp, "storage"))
	if !IsOpencodeData(dir) {
		t.Error("IsOpencodeData does not take a folder with opencode-dev.db")
	}
	sessions, err := ReadOpencodeData(dir)
	if err != nil || len(sessions) != 3 {
		t.Fatalf("read %d sessions, error %v; want 3", len(sessions), err)
	}
	if want := dir + "#ses_4f1e3000affeNoMessages01"; sessions[0].Path != want {
		t.Errorf("Path = %q, want %q", sessions[0].Path, want)
	}
	if got, want := sessions[1].Calls[0].Pos.String(), filepath.Join(dir, "opencode-dev.db")+"#part/prt_c9f1a0020003Tl"; got != want {
		t.Errorf("Pos = %q, want %q", got, want)
	}
}

// TestOpencodeStoreDamage reads storage folders with files that are
// missing, malformed or unreadable.
func TestOpencodeStoreDamage(t *testing.T) {
	const ses = "storage/session/p/ses_1.json"
	const msg = "storage/message/ses_1/msg_1.json"
	const part = "storage/part/msg_1/prt_1.json"
	const tool = `{"type": "tool", "callID": "c1", "tool": "bash", "state": {"status": "completed", "input": {"command": "false"}, "metadata": {"exit": 1}}}`
	tests := []struct {
		name  string
		files map[string]string
		calls int
		want  []string // notes, then skipped records
		err   string
	}{
		{"bad session info", map[string]string{ses: "{\n  \"title\": \"x\",\n  oops\n}", msg: `{"role": "assistant"}`, part: tool}, 1,
			[]string{"storage/session/p/ses_1.json:3: invalid JSON: invalid character 'o' looking for beginning of object key string"}, ""},
		{"bad message", map[string]string{ses: `{"title": "x"}`, msg: `{"role": "assistant"`, part: "\n\n" + tool}, 1,
			[]string{"storage/message/ses_1/msg_1.json:1: invalid JSON: record ends early"}, ""},
		{"empty part", map[string]string{ses: `{}`, msg: `{}`, part: ``}, 0,
			[]string{"storage/part/msg_1/prt_1.json:1: empty record: expected a JSON object"}, ""},
		{"no message folder", map[string]string{ses: `{}`}, 0,
			[]string{"no messages stored: storage/message/ses_1 is missing"}, ""},
		{"no part folders", map[string]string{ses: `{}`, msg: `{}`, "storage/message/ses_1/msg_2.json": `{}`}, 0,
			[]string{"2 messages have no part folder (the first: storage/part/msg_1): any calls they made are missing"}, ""},
		{"part nested too deep", map[string]string{ses: `{}`, msg: `{}`,
			part: strings.Replace(tool, `"false"`, `"false", "x": `+strings.Repeat("[", rawjson.MaxDepth)+strings.Repeat("]", rawjson.MaxDepth), 1)}, 0,
			[]string{"storage/part/msg_1/prt_1.json:1: invalid JSON: nested more than 10000 levels deep"}, ""},
		{"unreadable part", map[string]string{ses: `{}`, msg: `{}`, "storage/part/msg_1/prt_0.json": tool, part: "->prt_1.json"}, 1,
			nil, "read opencode session ses_1: stat storage/part/msg_1/prt_1.json: too many levels of symbolic links"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			tt.files["storage/project/p.json"] = `{"id": "p", "worktree": "/w"}`
			for name, data := range tt.files {
				if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
					t.Fatal(err)
				}
				if target, ok := strings.CutPrefix(data, "->"); ok {
					if err := os.Symlink(target, name); err != nil {
						t.Skip(err)
					}
					continue
				}
				if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if !IsOpencodeData("storage") {
				t.Error("IsOpencodeData(storage) = false")
			}
			sessions, err := ReadOpencodeData("storage")
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || err.Error() != tt.err) {
				t.Errorf("error = %v, want %q", err, tt.err)
			}
			if len(sessions) != 1 {
				t.Fatalf("read %d sessions, want 1", len(sessions))
			}
			s := sessions[0]
			got := slices.Clone(s.Notes)
			for _, e := range s.Skipped {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("notes and skipped records (-want +got):\n%s", diff)
			}
			if len(s.Calls) != tt.calls {
				t.Errorf("read %d calls, want %d", len(s.Calls), tt.calls)
			}
			if s.Path != "storage#ses_1" || s.ID != "ses_1" {
				t.Errorf("Path, ID = %q, %q; want storage#ses_1, ses_1", s.Path, s.ID)
			}
		})
	}
}

func TestIsOpencodeData(t *testing.T) {
	tmp := t.TempDir()
	extractTxtar(t, filepath.Join(opencodeStore, "storage.txtar"), filepath.Join(tmp, "b"))
	extractTxtar(t, filepath.Join(opencodeStore, "project.txtar"), filepath.Join(tmp, "a"))
	for name, data := range map[string]string{
		"c/opencode-beta.db":      "",
		"d/opencode.db/x":         "", // a folder named like a database
		"e/storage/session/x.txt": "",
		"e/project/x/storage/y":   "",
		"f/storage.db":            "",
	} {
		name = filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Databases known by their content, whatever their names.
	buildOpencodeDB(t, filepath.Join(tmp, "g", "project_opencode.db"), filepath.Join(tmp, "b", "storage"))
	if err := os.Mkdir(filepath.Join(tmp, "h"), 0o755); err != nil {
		t.Fatal(err)
	}
	other := openTestDB(t, filepath.Join(tmp, "h", "notes.sqlite"))
	mustExec(t, other, `CREATE TABLE session (id TEXT PRIMARY KEY, user TEXT)`)
	mustExec(t, other, `CREATE TABLE message (id TEXT PRIMARY KEY, body TEXT)`)
	other.Close()
	for _, tt := range []struct {
		dir  string
		want bool
	}{
		{"b", true},         // data folder with storage/
		{"b/storage", true}, // storage/ itself
		{"a", true},         // data folder with era A projects
		{"a/project/home-dev-legacy", true},
		{"a/project/home-dev-legacy/storage", true},
		{"c", true},                  // a channel's database
		{"c/opencode-beta.db", true}, // the database file
		{"b/storage/session", false},
		{"b/storage/migration", false},
		{"d", false},
		{"e", false},
		{"f", false},
		{"f/storage.db", false},
		{"g/project_opencode.db", true}, // an opencode database by its content
		{"g", false},                    // but no data folder
		{"h/notes.sqlite", false},       // a database with other tables
		{"missing", false},
	} {
		if got := IsOpencodeData(filepath.Join(tmp, filepath.FromSlash(tt.dir))); got != tt.want {
			t.Errorf("IsOpencodeData(%s) = %v, want %v", tt.dir, got, tt.want)
		}
	}
	if IsOpencodeData("") {
		t.Error(`IsOpencodeData("") = true`)
	}
}

// buildOpencodeDB writes the database opencode 1.2 would make by importing
// the JSON files of storage into path, as its json-migration.ts does: ids
// from the file names, and each object less its ids in the data column.
func buildOpencodeDB(t testing.TB, path, storage string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db := openTestDB(t, path)
	defer db.Close()
	for _, q := range []string{
		`PRAGMA journal_mode = WAL`,
		`CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL)`,
		`CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, workspace_id TEXT, parent_id TEXT, slug TEXT NOT NULL,
			directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL, share_url TEXT,
			summary_additions INTEGER, summary_deletions INTEGER, summary_files INTEGER, summary_diffs TEXT,
			revert TEXT, permission TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL,
			time_compacting INTEGER, time_archived INTEGER)`,
		`CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
			time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL)`,
		`CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id)`,
		`CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL REFERENCES message(id) ON DELETE CASCADE,
			session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL)`,
		`CREATE INDEX part_message_id_id_idx ON part (message_id, id)`,
	} {
		mustExec(t, db, q)
	}
	files, err := filepath.Glob(filepath.Join(storage, "session", "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		v := readTestJSON(t, f)
		id := strings.TrimSuffix(filepath.Base(f), ".json")
		times := v["time"].(map[string]any)
		mustExec(t, db, `INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, filepath.Base(filepath.Dir(f)), v["parentID"], v["slug"], v["directory"], v["title"], v["version"], times["created"], times["updated"])
	}
	msgSession := make(map[string]string)
	files, err = filepath.Glob(filepath.Join(storage, "message", "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		v := readTestJSON(t, f)
		id, session := strings.TrimSuffix(filepath.Base(f), ".json"), filepath.Base(filepath.Dir(f))
		msgSession[id] = session
		created := v["time"].(map[string]any)["created"]
		delete(v, "id")
		delete(v, "sessionID")
		mustExec(t, db, `INSERT INTO message VALUES (?, ?, ?, ?, ?)`, id, session, created, created, marshal(t, v))
	}
	files, err = filepath.Glob(filepath.Join(storage, "part", "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		id, msg := strings.TrimSuffix(filepath.Base(f), ".json"), filepath.Base(filepath.Dir(f))
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if json.Unmarshal(data, &v) == nil {
			delete(v, "id")
			delete(v, "sessionID")
			delete(v, "messageID")
			data = []byte(marshal(t, v))
		} // else the row keeps the broken text, as the import would not
		mustExec(t, db, `INSERT INTO part VALUES (?, ?, ?, 0, 0, ?)`, id, msg, msgSession[msg], string(data))
	}
}

// openTestDB opens the database path for writing, creating it if need be.
func openTestDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	// A file: URI, for a path with '?' in it.
	db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String())
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	return db
}

func mustExec(t testing.TB, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func readTestJSON(t testing.TB, file string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return v
}

func marshal(t testing.TB, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
