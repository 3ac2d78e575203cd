// Command transcriptmix prints how the bytes of Claude Code transcripts
// divide among the parts of their records: tool outputs (the tool_result
// blocks and the toolUseResult copies beside them), tool inputs, thinking,
// images, text and the rest of each record. It compares a generated corpus
// with a real one, so that tools/gencorpus draws the mix users have.
//
// Usage:
//
//	go run ./tools/transcriptmix PATH...
//
// Each PATH is a Claude Code .jsonl file or a folder searched for them. A
// line that is not a JSON object counts as "other".
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The parts a record's bytes are counted in, in the order printed.
var parts = []string{"toolUseResult", "tool_result", "tool_use input", "image", "thinking", "text", "other"}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: transcriptmix PATH...")
		os.Exit(2)
	}
	m := mix{}
	for _, root := range os.Args[1:] {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
				return err
			}
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			return m.read(f)
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "transcriptmix:", err)
			os.Exit(1)
		}
	}
	m.print(os.Stdout)
}

// A mix counts bytes by part.
type mix map[string]int64

// read counts the records of one transcript.
func (m mix) read(r io.Reader) error {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			m.record(line)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// record counts one line: the bytes of the parts it holds, and the rest as
// "other".
func (m mix) record(line []byte) {
	total := int64(len(line))
	counted := int64(0)
	add := func(part string, n int) {
		m[part] += int64(n)
		counted += int64(n)
	}
	var rec struct {
		ToolUseResult json.RawMessage `json:"toolUseResult"`
		Message       struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &rec) == nil {
		add("toolUseResult", len(rec.ToolUseResult))
		var blocks []json.RawMessage
		if json.Unmarshal(rec.Message.Content, &blocks) == nil {
			for _, b := range blocks {
				m.block(b, "", add)
			}
		} else {
			add("text", len(rec.Message.Content)) // a prompt as a plain string
		}
	}
	m["other"] += total - counted
}

// block counts one content block; within a tool_result, what is not an
// image counts as the tool's output.
func (m mix) block(raw json.RawMessage, within string, add func(string, int)) {
	var b struct {
		Type     string          `json:"type"`
		Text     json.RawMessage `json:"text"`
		Thinking json.RawMessage `json:"thinking"`
		Sig      json.RawMessage `json:"signature"`
		Input    json.RawMessage `json:"input"`
		Content  json.RawMessage `json:"content"`
		Source   struct {
			Data json.RawMessage `json:"data"`
		} `json:"source"`
	}
	if json.Unmarshal(raw, &b) != nil {
		return
	}
	switch {
	case b.Type == "image":
		add("image", len(b.Source.Data))
	case b.Type == "thinking":
		add("thinking", len(b.Thinking)+len(b.Sig))
	case b.Type == "tool_use":
		add("tool_use input", len(b.Input))
	case b.Type == "tool_result":
		var inner []json.RawMessage
		if json.Unmarshal(b.Content, &inner) == nil {
			for _, ib := range inner {
				m.block(ib, "tool_result", add)
			}
		} else {
			add("tool_result", len(b.Content))
		}
	case within != "":
		add(within, len(b.Text))
	case b.Type == "text":
		add("text", len(b.Text))
	}
}

// print writes each part's share of the bytes.
func (m mix) print(w io.Writer) {
	var total int64
	for _, n := range m {
		total += n
	}
	fmt.Fprintf(w, "%-15s %12s %6s\n", "part", "bytes", "share")
	for _, p := range parts {
		share := 0.0
		if total > 0 {
			share = 100 * float64(m[p]) / float64(total)
		}
		fmt.Fprintf(w, "%-15s %12d %5.1f%%\n", p, m[p], share)
	}
	fmt.Fprintf(w, "%-15s %12d\n", "total", total)
}
