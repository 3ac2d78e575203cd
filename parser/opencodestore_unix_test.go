//go:build unix

package parser

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpencodeFilesNotRegular checks that the files of a data folder are
// read only when they are regular files no larger than a record: a named
// pipe among the part files would block the read for ever, and a link to
// /dev/zero would never end. Each is a skipped record.
func TestOpencodeFilesNotRegular(t *testing.T) {
	defer func(n int) { maxDocument = n }(maxDocument)
	maxDocument = 1 << 10
	dir := t.TempDir()
	extractTxtar(t, filepath.Join(opencodeStore, "storage.txtar"), dir)
	parts := filepath.Join(dir, "storage", "part", "msg_c9f1a0020000A1")
	fifo := filepath.Join(parts, "prt_c9f1a0020009Pi.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	big := filepath.Join(parts, "prt_c9f1a0020008Bg.json")
	if err := os.WriteFile(big, []byte(`{"type":"text","text":"`+strings.Repeat("x", maxDocument)+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan []*Session)
	go func() {
		sessions, err := ReadOpencodeData(dir)
		if err != nil {
			t.Error(err)
		}
		done <- sessions
	}()
	var sessions []*Session
	select {
	case sessions = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("reading a data folder with a named pipe in it does not end")
	}
	var got []string
	for _, s := range sessions {
		for _, e := range s.Skipped {
			got = append(got, e.Error())
		}
	}
	for _, want := range []string{
		big + ": larger than 1 KiB, the limit on one record",
		fifo + ": not a regular file",
	} {
		if !strings.Contains(strings.Join(got, "\n"), want) {
			t.Errorf("skipped records %q lack %q", got, want)
		}
	}
}
