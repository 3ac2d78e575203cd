// Package synth writes synthetic agent transcripts: one scenario, a list of
// tool calls with their outputs, rendered in each agent's own format. The
// repository's sample transcripts and the benchmark corpus are made with it,
// so that the same story can be checked in every format.
package synth

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// A Session is a scenario: an agent session told as a list of steps.
type Session struct {
	ID    string // a UUID; formats that use other ids derive theirs from it
	Title string
	Cwd   string
	Model string
	Start time.Time
	Steps []Step
	// Seed seeds the identifiers the writers derive (message and call
	// ids); empty means ID. Parts of one session written one after the
	// other need seeds of their own, so that their ids differ.
	Seed string
}

// seed returns what the session's derived identifiers are drawn from.
func (s *Session) seed() string {
	if s.Seed != "" {
		return s.Seed
	}
	return s.ID
}

// rel returns path relative to the session's directory when it is inside
// it, as Codex CLI writes paths in patches and commands and Gemini CLI
// shows them.
func (s *Session) rel(path string) string {
	if r, ok := strings.CutPrefix(path, s.Cwd+"/"); ok {
		return r
	}
	if path == s.Cwd {
		return "."
	}
	return path
}

// A Step is a user prompt, or an assistant turn that makes one tool call.
type Step struct {
	Prompt string // a user message; when set, the other fields but Image are unused
	// Image is a picture pasted with the prompt, base64-encoded; Claude
	// Code records it as an image block. Other writers leave it out.
	Image string

	Text string // assistant text before the call
	// Thinking is the assistant's reasoning before the call, which Claude
	// Code records as a thinking block; other writers leave it out.
	Thinking string
	Tool     string // canonical tool: bash, read, edit, write, grep, todo
	Input    []KV   // canonical input: command, description, file_path, old_string, new_string, content, pattern, path, todos
	// Output is what the tool printed. For read it is the file's text,
	// which each format numbers its own way.
	Output string
	// Original is the text of an edited file before the edit, which
	// Claude Code records with the result; other writers leave it out.
	Original string
	Exit     int  // bash exit status
	Error    bool // a tool error, for tools other than bash
	// NoMatch marks a search that found nothing, which some agents record
	// specially.
	NoMatch bool

	Think    time.Duration // time between the previous step and this call
	Duration time.Duration // how long the call ran
	Tokens   int           // output tokens of the assistant message
}

// A KV is one key and value of an ordered JSON object.
type KV struct {
	Key   string
	Value any
}

// obj is a JSON object that keeps its keys in order, as agents write them.
type obj []KV

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(kv.Key)
		if err != nil {
			return nil, err
		}
		v, err := marshal(kv.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal encodes v as JSON without escaping <, > and &, as agents do.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// input returns the value of a canonical input key, or nil.
func (s *Step) input(key string) any {
	for _, kv := range s.Input {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

func (s *Step) inputString(key string) string {
	v, _ := s.input(key).(string)
	return v
}

// A clock hands out the times of a session's events.
type clock struct{ t time.Time }

func (c *clock) add(d time.Duration) time.Time {
	c.t = c.t.Add(d)
	return c.t
}

// ids derives stable identifiers from a seed, so that a scenario always
// renders to the same bytes.
type ids struct {
	seed string
	n    int
}

// next returns n characters drawn from alphabet, different at each call.
func (g *ids) next(alphabet string, n int) string {
	g.n++
	b := make([]byte, n)
	var sum [sha256.Size]byte
	for i := range b {
		if i%len(sum) == 0 {
			sum = sha256.Sum256(fmt.Appendf(nil, "%s/%d/%d", g.seed, g.n, i))
		}
		b[i] = alphabet[int(sum[i%len(sum)])%len(alphabet)]
	}
	return string(b)
}

const (
	hexDigits = "0123456789abcdef"
	base62    = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

func (g *ids) uuid() string {
	h := g.next(hexDigits, 32)
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-8" + h[17:20] + "-" + h[20:]
}
