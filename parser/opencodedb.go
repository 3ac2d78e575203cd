package parser

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite" // the "sqlite" driver, in pure Go
	sqlite3 "modernc.org/sqlite/lib"
)

// Since v1.2 opencode keeps its sessions in the SQLite database opencode.db
// (opencode-<channel>.db for other release channels), in WAL mode. Its tables
// session, message and part hold what the files of storage/ held: a message
// or part row has its id, the id of its session or message, and in its data
// column the JSON object of the file less those ids, which the shared reader
// does not need. Messages are ordered by time_created, then id; the parts of
// a message by id.
//
// The database is only read, in one read transaction, and never written:
// it is opened with mode=ro, so SQLite opens the file read-only and fails any
// write, and with PRAGMA query_only. When no -wal or -journal file lies
// beside it, opencode is not using it and the file holds every transaction:
// it is opened immutable as well, and SQLite then takes no lock and neither
// opens -wal nor creates -shm (should opencode start and checkpoint into the
// file during the read, which takes a second or so, the read may fail and
// need doing again). Otherwise opencode is running, or stopped
// without a checkpoint, and its latest transactions are only in the -wal
// file; the database is then read as any SQLite reader does, with locks, so
// that the snapshot is consistent and holds them. SQLite writes its read
// marks in the -shm index then, and creates that file if it is missing, but
// writes neither the database nor the -wal file, and a read-only connection
// neither checkpoints nor removes the -wal file when it closes.
//
// A database file can be crafted to make a reader work without end: a
// recursive view named message, a virtual table, a column computed as it is
// read (a printf of 500 MB per row). Only tables are read, and only their
// stored columns; no value may be longer than maxDocument
// (SQLITE_LIMIT_LENGTH); and the whole read may take no longer than
// opencodeDBTime allows for the file's size, after which SQLite is
// interrupted. A database that passes a limit is named with it, and the
// sessions not read by then are left out.

// opencodeDBTime returns how long reading a database of size bytes (with
// its -wal file) may take.
var opencodeDBTime = func(size int64) time.Duration {
	return time.Minute + time.Duration(size>>20)*time.Second
}

// sqliteHeader starts every SQLite 3 database file.
const sqliteHeader = "SQLite format 3\x00"

// isSQLite reports whether head, the start of a file, is that of an SQLite
// database.
func isSQLite(head []byte) bool { return bytes.HasPrefix(head, []byte(sqliteHeader)) }

// IsSQLite reports whether the file path is an SQLite database, by its
// header.
func IsSQLite(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(sqliteHeader))
	_, err = io.ReadFull(f, head)
	return err == nil && isSQLite(head)
}

// IsOpencodeDB reports whether the file path is an opencode database,
// whatever its name: an SQLite database with the tables and columns of
// opencode's that the reader needs (session, message and part). It reads
// the file's header, and opens the database, read-only, only when the
// header is SQLite's.
func IsOpencodeDB(path string) bool {
	if !IsSQLite(path) {
		return false
	}
	d, err := openOpencodeDB(path)
	if err != nil {
		return false
	}
	d.close()
	return true
}

// An opencodeDB is an opencode database open for reading.
type opencodeDB struct {
	path     string
	db       *sql.DB
	conn     *sql.Conn
	tx       *sql.Tx         // one read transaction: one snapshot
	parts    *sql.Stmt       // the parts of a message
	msgOrder string          // ORDER BY clause of the messages
	session  map[string]bool // columns of the session table

	ctx    context.Context // ends when the time to read the database is up
	cancel context.CancelFunc
	size   int64         // of the database and its -wal file
	time   time.Duration // the time it may be read for
	failed *LimitError   // the limit the read passed, after which nothing is read
}

// openOpencodeDB opens the database file path and checks that it has the
// tables and columns the reader needs.
func openOpencodeDB(path string) (*opencodeDB, error) {
	db, err := sql.Open("sqlite", opencodeDSN(path))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	d := &opencodeDB{path: path, db: db, size: fileSize(path) + fileSize(path+"-wal")}
	d.time = opencodeDBTime(d.size)
	d.ctx, d.cancel = context.WithTimeout(context.Background(), d.time)
	if err := d.open(); err != nil {
		err = d.readError(err)
		d.close()
		return nil, err
	}
	return d, nil
}

func (d *opencodeDB) open() error {
	var err error
	if d.conn, err = d.db.Conn(d.ctx); err != nil {
		return err
	}
	if _, err := sqlite.Limit(d.conn, sqlite3.SQLITE_LIMIT_LENGTH, maxDocument); err != nil {
		return err
	}
	if d.tx, err = d.conn.BeginTx(d.ctx, nil); err != nil {
		return err
	}
	if d.session, err = d.columns("session", "id"); err != nil {
		return err
	}
	msg, err := d.columns("message", "id", "session_id", "data")
	if err != nil {
		return err
	}
	d.msgOrder = "id"
	if msg["time_created"] {
		d.msgOrder = "time_created, id"
	}
	if _, err := d.columns("part", "id", "message_id", "data"); err != nil {
		return err
	}
	d.parts, err = d.tx.PrepareContext(d.ctx, "SELECT id, data FROM part WHERE message_id = ? ORDER BY id")
	return err
}

func (d *opencodeDB) close() {
	if d.tx != nil {
		d.tx.Rollback()
	}
	if d.conn != nil {
		d.conn.Close()
	}
	d.db.Close()
	d.cancel()
}

// limited returns the LimitError that err stands for, when the read passed
// the time limit or a value the length limit, and err otherwise. The first
// limit passed is the database's for good: nothing more is read.
func (d *opencodeDB) limited(err error) error {
	if err == nil || d.failed != nil {
		return cmpOr(d.failed, err)
	}
	var se *sqlite.Error
	switch {
	case d.ctx.Err() != nil:
		d.failed = &LimitError{Name: d.path,
			Msg: fmt.Sprintf("read for longer than %v, the limit for a database of %s", d.time, sizeText(d.size))}
	case errors.As(err, &se) && se.Code() == sqlite3.SQLITE_TOOBIG:
		d.failed = &LimitError{Name: d.path, Msg: "a value larger than " + sizeText(int64(maxDocument)) + ", the limit on one record"}
	default:
		return err
	}
	return d.failed
}

// cmpOr returns le when it is set, else err.
func cmpOr(le *LimitError, err error) error {
	if le != nil {
		return le
	}
	return err
}

// fileSize returns the size of file name, or 0 when it cannot be known.
func fileSize(name string) int64 {
	fi, err := os.Stat(name)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// opencodeDSN returns the name to open the database file path with: a
// file: URI, whose query the driver and SQLite read.
func opencodeDSN(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a drive letter: file:///C:/…
	}
	q := "mode=ro"
	if !exists(path+"-wal") && !exists(path+"-journal") {
		q += "&immutable=1"
	}
	// query_only and trusted_schema(0) guard again against a write, the
	// latter from a crafted schema's views and triggers; busy_timeout waits
	// for an opencode that holds a lock for a moment.
	q += "&_pragma=query_only(1)&_pragma=trusted_schema(0)&_pragma=busy_timeout(5000)"
	return (&url.URL{Scheme: "file", Path: p}).String() + "?" + q
}

func exists(name string) bool {
	_, err := os.Lstat(name)
	return err == nil
}

// columns returns the columns of table, and an error naming what is missing
// when the table or one of the needed columns is. The table must be a table
// SQLite stores: a view, a virtual table or a column computed as it is read
// could make the read take any time and memory.
func (d *opencodeDB) columns(table string, need ...string) (map[string]bool, error) {
	var typ, text string
	err := d.tx.QueryRowContext(d.ctx, `SELECT type, coalesce(sql, '') FROM sqlite_schema
		WHERE name = ? COLLATE NOCASE AND type IN ('table', 'view')`, table).Scan(&typ, &text)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, fmt.Errorf("no table %q: not an opencode database, or of a version this reader does not know", table)
	case err != nil:
		return nil, err
	case typ == "view":
		return nil, fmt.Errorf("%q is a view, not a table; only tables are read", table)
	case strings.HasPrefix(strings.ToUpper(strings.Join(strings.Fields(text), " ")), "CREATE VIRTUAL TABLE"):
		return nil, fmt.Errorf("%q is a virtual table; only tables are read", table)
	}
	// hidden is 2 for a column computed as it is read, 3 for one computed
	// as it is written and stored.
	rows, err := d.tx.QueryContext(d.ctx, "SELECT name, hidden FROM pragma_table_xinfo(?)", table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols := make(map[string]bool)
	for rows.Next() {
		var name string
		var hidden int
		if err := rows.Scan(&name, &hidden); err != nil {
			return nil, err
		}
		if hidden == 2 {
			return nil, fmt.Errorf("table %q computes its column %q as it is read; only stored columns are read", table, name)
		}
		cols[name] = true
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, c := range need {
		if !cols[c] {
			return nil, fmt.Errorf("table %q has no column %q: an opencode database of a version this reader does not know", table, c)
		}
	}
	return cols, nil
}

// sessions lists the sessions of the database, read as from dir.
func (d *opencodeDB) sessions(dir string) ([]*opencodeCopy, error) {
	col := func(name string) string {
		if d.session[name] {
			return name
		}
		return "NULL"
	}
	rows, err := d.tx.QueryContext(d.ctx, fmt.Sprintf("SELECT id, %s, %s, %s, %s, %s, %s FROM session",
		col("parent_id"), col("directory"), col("title"), col("version"), col("time_created"), col("time_updated")))
	if err != nil {
		return nil, d.readError(err)
	}
	defer rows.Close()
	var copies []*opencodeCopy
	for rows.Next() {
		var id string
		var parent, directory, title, version sql.NullString
		var created, updated sql.NullInt64
		if err := rows.Scan(&id, &parent, &directory, &title, &version, &created, &updated); err != nil {
			return copies, d.readError(err)
		}
		s := newOpencodeSession(dir, id)
		s.Title, s.Cwd, s.Agent = title.String, directory.String, version.String
		s.Start, s.End = unixMillis(created.Int64), unixMillis(updated.Int64)
		copies = append(copies, &opencodeCopy{s: s, updated: updated.Int64, parent: parent.String, read: d.read})
	}
	if err := rows.Err(); err != nil {
		return copies, d.readError(err)
	}
	return copies, nil
}

// readError words an error reading the database: the limit it stands for,
// or the error with the file's name.
func (d *opencodeDB) readError(err error) error {
	if le := d.limited(err); le != err {
		return le
	}
	return fmt.Errorf("read %s: %w", d.path, err)
}

// read adds the calls of session s to it.
func (d *opencodeDB) read(s *Session) error {
	if d.failed != nil {
		return d.failed
	}
	err := d.readSession(s)
	if le := d.limited(err); le != err {
		return le
	}
	if err != nil {
		return fmt.Errorf("%s: %w", d.path, err)
	}
	return nil
}

// readSession is read, with errors unworded.
func (d *opencodeDB) readSession(s *Session) error {
	type message struct {
		id   string
		data []byte
	}
	var msgs []message
	rows, err := d.tx.QueryContext(d.ctx, "SELECT id, data FROM message WHERE session_id = ? ORDER BY "+d.msgOrder, s.ID)
	if err != nil {
		return err
	}
	for rows.Next() {
		var m message
		if err := rows.Scan(&m.id, &m.data); err != nil {
			rows.Close()
			return err
		}
		msgs = append(msgs, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}

	old := 0
	for i, msg := range msgs {
		info, _ := jsonObject(s, d.path+"#message/"+msg.id, msg.data, false)
		if isOldOpencodeMessage(info) {
			old++
		}
		m := newOpencodeMessage(s, info, i)
		if err := d.readParts(s, m, msg.id); err != nil {
			return err
		}
	}
	noteOldOpencodeMessages(s, old)
	return nil
}

// readParts reads the parts of message id into m.
func (d *opencodeDB) readParts(s *Session, m *opencodeMessage, id string) error {
	rows, err := d.parts.QueryContext(d.ctx, id)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var data []byte
		if err := rows.Scan(&id, &data); err != nil {
			return err
		}
		pos := Pos{File: d.path + "#part/" + id}
		if p, ok := jsonObject(s, pos.File, data, false); ok {
			m.part(p, pos)
		}
	}
	return rows.Err()
}

// unixMillis returns the time ms milliseconds after the epoch, in UTC; zero
// for 0 or less, or for a time after the year 9999, which JSON cannot write.
func unixMillis(ms int64) time.Time {
	if ms <= 0 || ms >= maxMillis {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// maxMillis is the start of the year 10000 in milliseconds since 1970.
const maxMillis = 253402300800000
