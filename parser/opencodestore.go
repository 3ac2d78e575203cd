package parser

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/retrace-dev/retrace/parser/internal/rawjson"
)

// opencode keeps its sessions in its data folder,
// ${XDG_DATA_HOME:-~/.local/share}/opencode, and has stored them in three
// ways over time:
//
//   - era A (early 2025), one folder per project:
//     project/<project>/storage/session/info/<session>.json,
//     …/session/message/<session>/<message>.json and
//     …/session/part/<session>/<message>/<part>.json;
//   - era B (mid-2025 to v1.1): storage/session/<project>/<session>.json,
//     storage/message/<session>/<message>.json and
//     storage/part/<message>/<part>.json;
//   - era C (v1.2, February 2026, on): the SQLite database opencode.db, or
//     opencode-<channel>.db for other release channels (opencodedb.go).
//
// A JSON file holds one object of a shape an export nests: a Session.Info, a
// message's info, one part. As opencode does, ids are taken from the file
// names, and messages are ordered by id, as are the parts of each message. A
// call's Msg is the index of its message in that order, so it means what it
// means in an export of the same session.
//
// An upgrade copies and deletes nothing: the era A folders stay after the
// move to storage/, and storage/ stays after the import into the database. A
// session found in several places is read from the copy updated last; on a
// tie, from the database, then storage/, then the project folders.
//
// Positions. A session read from a data folder has the Path
// "<dir>#<session id>", with dir the folder (or database file) given to
// ReadOpencodeData: no one file holds a whole session, the path names the
// same session whichever way it is stored, and `opencode export <session id>`
// prints it whole.
// A call's Pos is the file of its part, at the line where the part's object
// starts (1, as opencode writes them); in the database it is
// "<db path>#part/<part id>", line 0. A file or row that is not a JSON object
// is skipped with a SyntaxError at the same kind of place: the file and the
// line of the error, or "<db path>#message/<id>" and "#part/<id>".

// IsOpencodeData reports whether dir holds opencode sessions that
// ReadOpencodeData reads: an opencode data folder (with storage/session/, an
// opencode.db or opencode-<channel>.db database, or era A project folders),
// a storage/ folder, an era A project folder (project/<project>) or its
// storage/ folder. dir may also name a database file: opencode.db or
// opencode-<channel>.db, or, whatever its name, a file IsOpencodeDB takes.
// It is cheap: it stats a few names and lists dir and its project/ folder
// if any; of a file, it reads the header.
func IsOpencodeData(dir string) bool {
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return false
	case !fi.IsDir():
		return isOpencodeDBFile(dir, fi)
	case isOpencodeStorage(dir), isOpencodeStorage(filepath.Join(dir, "storage")),
		isOpencodeProject(dir), isOpencodeProject(filepath.Join(dir, "storage")),
		isFile(filepath.Join(dir, "opencode.db")):
		return true
	}
	l := findOpencode(dir)
	return len(l.dbs) > 0 || len(l.projects) > 0
}

// ReadOpencodeData reads every session stored in dir, which IsOpencodeData
// accepts, ordered by start time and then by id; a dir that holds none gives
// none. Each is a Session of the
// format "opencode" whose Path is "<dir>#<session id>"; a subagent's session
// (one with a parent) is a session of its own, with a Note naming its parent.
//
// Malformed files and rows are skipped and reported in the session's
// Skipped, and a missing message or part folder in its Notes. Other errors
// (a file or database that cannot be read) are returned, joined, together
// with every session that could be read, in part or whole.
func ReadOpencodeData(dir string) ([]*Session, error) {
	dir = filepath.Clean(dir)
	l := findOpencode(dir)
	var errs []error
	var copies []*opencodeCopy
	for _, db := range l.dbs {
		src, err := openOpencodeDB(db)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		defer src.close()
		found, err := src.sessions(dir)
		copies = append(copies, found...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	if l.storage != "" {
		found, err := storageSessions(dir, l.storage)
		copies = append(copies, found...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	for _, p := range l.projects {
		found, err := projectSessions(dir, p)
		copies = append(copies, found...)
		if err != nil {
			errs = append(errs, err)
		}
	}

	// The first copy of a session wins unless a later one was updated after it.
	best := make(map[string]*opencodeCopy)
	var ids []string
	for _, c := range copies {
		b, ok := best[c.s.ID]
		if !ok {
			ids = append(ids, c.s.ID)
		}
		if !ok || c.updated > b.updated {
			best[c.s.ID] = c
		}
	}
	sessions := make([]*Session, 0, len(ids))
	var limits []*LimitError
	for _, id := range ids {
		c := best[id]
		if c.parent != "" {
			note := "subagent session: a child of " + c.parent
			if p := best[c.parent]; p != nil && p.s.Title != "" {
				note += fmt.Sprintf(" %q", p.s.Title)
			}
			c.s.Notes = append(c.s.Notes, note)
		}
		err := c.read(c.s)
		if le := (*LimitError)(nil); errors.As(err, &le) {
			// A database past a limit is read no further: it is named
			// once, and its sessions not read are left out.
			if !slices.Contains(limits, le) {
				limits = append(limits, le)
				errs = append(errs, le)
			}
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("read opencode session %s: %w", id, err))
		}
		sessions = append(sessions, c.s)
	}
	slices.SortFunc(sessions, func(a, b *Session) int {
		return cmp.Or(a.Start.Compare(b.Start), strings.Compare(a.ID, b.ID))
	})
	return sessions, errors.Join(errs...)
}

// An opencodeCopy is one stored copy of a session, before its messages are
// read.
type opencodeCopy struct {
	s       *Session // with its id, info, notes and skipped records so far
	updated int64    // time of the last update, in ms since the epoch
	parent  string   // id of the parent session, for a subagent's
	// read adds the session's calls to s.
	read func(s *Session) error
}

// newOpencodeSession returns the session id, read from dir, without calls.
func newOpencodeSession(dir, id string) *Session {
	return &Session{Path: dir + "#" + id, Format: "opencode", ID: id, Calls: []*Call{}}
}

// An opencodeLayout lists the places of a data folder that hold sessions.
type opencodeLayout struct {
	dbs      []string // database files, opencode.db first
	storage  string   // era B storage folder
	projects []string // era A project storage folders
}

// findOpencode finds the places in dir that hold sessions.
func findOpencode(dir string) opencodeLayout {
	var l opencodeLayout
	if fi, err := os.Stat(dir); err != nil {
		return l
	} else if !fi.IsDir() {
		if isOpencodeDBFile(dir, fi) {
			l.dbs = []string{dir}
		}
		return l
	}
	storage := filepath.Join(dir, "storage")
	switch {
	case isOpencodeStorage(dir):
		l.storage = dir
	case isOpencodeProject(dir):
		l.projects = []string{dir}
	case isOpencodeProject(storage):
		l.projects = []string{storage}
	default:
		if isOpencodeStorage(storage) {
			l.storage = storage
		}
		if isFile(filepath.Join(dir, "opencode.db")) {
			l.dbs = append(l.dbs, filepath.Join(dir, "opencode.db"))
		}
		channels, _ := filepath.Glob(filepath.Join(globEscape(dir), "opencode-*.db"))
		for _, db := range channels {
			if isFile(db) {
				l.dbs = append(l.dbs, db)
			}
		}
		if isDir(filepath.Join(dir, "project")) {
			projects, _ := filepath.Glob(filepath.Join(globEscape(dir), "project", "*", "storage"))
			for _, p := range projects {
				if isOpencodeProject(p) {
					l.projects = append(l.projects, p)
				}
			}
		}
	}
	return l
}

// isOpencodeDBFile reports whether the file path, of info fi, is one
// ReadOpencodeData reads as a database: one named as opencode names its
// databases, which it reads or reports as damaged, or one of any name that
// IsOpencodeDB takes.
func isOpencodeDBFile(path string, fi fs.FileInfo) bool {
	return fi.Mode().IsRegular() && (isOpencodeDBName(filepath.Base(path)) || IsOpencodeDB(path))
}

// isOpencodeDBName reports whether name is that of an opencode database.
func isOpencodeDBName(name string) bool {
	return name == "opencode.db" || strings.HasPrefix(name, "opencode-") && strings.HasSuffix(name, ".db")
}

// isOpencodeStorage reports whether dir is an era B storage folder.
func isOpencodeStorage(dir string) bool {
	return isDir(filepath.Join(dir, "session")) &&
		(isDir(filepath.Join(dir, "message")) || isDir(filepath.Join(dir, "project")))
}

// isOpencodeProject reports whether dir is the storage folder of an era A
// project.
func isOpencodeProject(dir string) bool {
	return isDir(filepath.Join(dir, "session", "info"))
}

func isDir(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.IsDir()
}

func isFile(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.Mode().IsRegular()
}

// globEscape quotes the characters of dir that filepath.Glob would take for
// a pattern.
func globEscape(dir string) string {
	if filepath.Separator == '\\' {
		// There \ separates; Glob has no escape, and [ ] still quote.
		return strings.NewReplacer("*", "[*]", "?", "[?]", "[", "[[]").Replace(dir)
	}
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`).Replace(dir)
}

// storageSessions lists the sessions of an era B storage folder:
// session/<project>/<session>.json, whose messages are in
// message/<session>/ and their parts in part/<message>/.
func storageSessions(dir, storage string) ([]*opencodeCopy, error) {
	projects, err := os.ReadDir(filepath.Join(storage, "session"))
	if err != nil {
		return nil, err
	}
	var copies []*opencodeCopy
	for _, p := range projects {
		if !p.IsDir() {
			continue
		}
		folder := filepath.Join(storage, "session", p.Name())
		ids, err := jsonIDs(folder)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return copies, err
		}
		for _, id := range ids {
			c, err := readOpencodeInfo(dir, folder, id)
			if err != nil {
				return copies, err
			}
			msgs := filepath.Join(storage, "message", id)
			c.read = func(s *Session) error {
				return readOpencodeFiles(s, msgs, func(msg string) string {
					return filepath.Join(storage, "part", msg)
				})
			}
			copies = append(copies, c)
		}
	}
	return copies, nil
}

// projectSessions lists the sessions of an era A project's storage folder:
// session/info/<session>.json, whose messages are in
// session/message/<session>/ and their parts in
// session/part/<session>/<message>/.
func projectSessions(dir, storage string) ([]*opencodeCopy, error) {
	folder := filepath.Join(storage, "session", "info")
	ids, err := jsonIDs(folder)
	if err != nil {
		return nil, err
	}
	var copies []*opencodeCopy
	for _, id := range ids {
		c, err := readOpencodeInfo(dir, folder, id)
		if err != nil {
			return copies, err
		}
		msgs := filepath.Join(storage, "session", "message", id)
		parts := filepath.Join(storage, "session", "part", id)
		c.read = func(s *Session) error {
			return readOpencodeFiles(s, msgs, func(msg string) string {
				return filepath.Join(parts, msg)
			})
		}
		copies = append(copies, c)
	}
	return copies, nil
}

// readOpencodeInfo reads the session info file <folder>/<id>.json. A file
// that is not JSON leaves a session without title or times, whose messages
// are still read.
func readOpencodeInfo(dir, folder, id string) (*opencodeCopy, error) {
	s := newOpencodeSession(dir, id)
	c := &opencodeCopy{s: s}
	info, err := readJSONFile(s, filepath.Join(folder, id+".json"))
	if err != nil {
		return nil, err
	}
	setOpencodeInfo(s, info)
	c.updated = info.Path("time", "updated").Int()
	c.parent = info.Get("parentID").Text()
	return c, nil
}

// readOpencodeFiles adds the calls of the messages in msgDir, whose parts
// are in partDir(message id), to s.
func readOpencodeFiles(s *Session, msgDir string, partDir func(string) string) error {
	msgs, err := jsonIDs(msgDir)
	if errors.Is(err, fs.ErrNotExist) {
		s.Notes = append(s.Notes, "no messages stored: "+msgDir+" is missing")
		return nil
	}
	if err != nil {
		return err
	}
	var old int
	var noParts []string
	for i, id := range msgs {
		info, err := readJSONFile(s, filepath.Join(msgDir, id+".json"))
		if err != nil {
			return err
		}
		if s.Cwd == "" {
			// Era A sessions have no directory; their messages do.
			s.Cwd = cmp.Or(info.Path("path", "cwd").Text(), info.Path("metadata", "assistant", "path", "cwd").Text())
		}
		if isOldOpencodeMessage(info) {
			old++ // its parts are in it, not in a folder
			continue
		}
		m := newOpencodeMessage(s, info, i)
		folder := partDir(id)
		parts, err := jsonIDs(folder)
		if errors.Is(err, fs.ErrNotExist) {
			noParts = append(noParts, folder)
			continue
		}
		if err != nil {
			return err
		}
		for _, id := range parts {
			name := filepath.Join(folder, id+".json")
			data, err := readRecordFile(s, name)
			if err != nil {
				return err
			}
			if data == nil {
				continue
			}
			if p, ok := jsonObject(s, name, data, true); ok {
				// The line where the object starts: 1 unless blank lines precede it.
				line := 1 + bytes.Count(data[:bytes.IndexByte(data, '{')], []byte("\n"))
				m.part(p, Pos{File: name, Line: line})
			}
		}
	}
	noteOldOpencodeMessages(s, old)
	switch len(noParts) {
	case 0:
	case 1:
		s.Notes = append(s.Notes, "a message has no part folder, "+noParts[0]+": any calls it made are missing")
	default:
		s.Notes = append(s.Notes, fmt.Sprintf("%d messages have no part folder (the first: %s): any calls they made are missing", len(noParts), noParts[0]))
	}
	return nil
}

// isOldOpencodeMessage reports whether info is a message of opencode's first
// format, before mid-2025, which holds its parts itself.
func isOldOpencodeMessage(info rawjson.Value) bool {
	return info.Get("parts").Kind() == rawjson.Array
}

// noteOldOpencodeMessages notes that the session has n messages of the
// first format, whose tool-invocation parts retrace does not read.
func noteOldOpencodeMessages(s *Session, n int) {
	switch {
	case n == 1:
		s.Notes = append(s.Notes, "a message is in opencode's first message format, which retrace does not read: its calls are missing")
	case n > 1:
		s.Notes = append(s.Notes, fmt.Sprintf("%d messages are in opencode's first message format, which retrace does not read: their calls are missing", n))
	}
}

// jsonIDs returns the names, less ".json", of the JSON files in dir, sorted.
// opencode's temporary files (.oc-…tmp) are left out.
func jsonIDs(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() && strings.HasSuffix(name, ".json") && !strings.HasPrefix(name, ".") {
			ids = append(ids, strings.TrimSuffix(name, ".json"))
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// readJSONFile reads the JSON object in file name. A missing file, or one
// that is not a JSON object, gives an empty result; the latter is recorded in
// s.Skipped. Other errors are returned.
func readJSONFile(s *Session, name string) (rawjson.Value, error) {
	data, err := readRecordFile(s, name)
	if data == nil {
		return rawjson.Value{}, err
	}
	v, _ := jsonObject(s, name, data, true)
	return v, nil
}

// readRecordFile reads file name, which holds one record of a data
// folder. A file that is missing gives nil; one that is not a regular file
// (a named pipe would block the read, a link to a device never end it) or
// is larger than maxDocument gives nil too, and is recorded in s.Skipped.
// Other errors are returned.
func readRecordFile(s *Session, name string) ([]byte, error) {
	fi, err := os.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // deleted since its folder was listed
	}
	if err != nil {
		return nil, err
	}
	tooLarge := func() {
		s.skipAt(Pos{File: name}, func() string {
			return "larger than " + sizeText(int64(maxDocument)) + ", the limit on one record"
		})
	}
	switch {
	case !fi.Mode().IsRegular():
		s.skipAt(Pos{File: name}, func() string { return "not a regular file" })
		return nil, nil
	case fi.Size() > int64(maxDocument):
		tooLarge()
		return nil, nil
	}
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(maxDocument)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxDocument { // it grew since
		tooLarge()
		return nil, nil
	}
	return data, nil
}

// jsonObject parses data, a file's content or a row's, as one JSON object.
// When it is not one, it records a SyntaxError at name, with the line of the
// error if lines is set, and reports false.
func jsonObject(s *Session, name string, data []byte, lines bool) (rawjson.Value, bool) {
	skip := func(off int64, msg string) {
		line := 0
		if lines && off >= 0 {
			// An object cut short ends on its last line, not past it.
			end := len(bytes.TrimRight(data, " \t\r\n"))
			line = (&lineCounter{data: data, line: 1}).at(min(int(off), end))
		}
		s.skipAt(Pos{File: name, Line: line}, func() string { return msg })
	}
	if len(bytes.TrimSpace(data)) == 0 {
		skip(0, "empty record: expected a JSON object")
		return rawjson.Value{}, false
	}
	v, ok := rawjson.Parse(string(data))
	if !ok {
		msg, off := "", int64(0)
		if s.listsSkipped() { // else why is not said
			msg, off = jsonError(data)
		}
		skip(off, msg)
		return rawjson.Value{}, false
	}
	if v.Kind() != rawjson.Object {
		skip(0, "record is not a JSON object")
		return rawjson.Value{}, false
	}
	return v, true
}
