package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fakeSecrets are made up, in the shapes of real credentials, and built
// from pieces so that the repository holds nothing a secret scanner would
// take for a key.
func fakeSecrets() map[string]string {
	r := strings.Repeat
	return map[string]string{
		"openai":    "sk-" + "proj-" + r("A1b2C3d4", 5),
		"anthropic": "sk-" + "ant-api03-" + r("A1b2C3d4", 8) + "AA",
		"github":    "gh" + "p_" + r("Z9y8X7w6", 4) + "Ab12",
		"aws":       "AK" + "IA" + "QWERTYUIOP123456",
		"slack":     "xo" + "xb-123456789012-123456789012-" + r("abcDEF", 4),
		"hf":        "h" + "f_" + r("AbCdEfGh", 4) + "Ij",
		"jwt":       "ey" + "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + r("c2ln", 8),
		"password":  "hunter" + "2-" + "Xq9",
		"key":       "MIIEow" + "IBAAKCAQEA" + r("q83Z", 6),
	}
}

// writeHostile writes a Claude Code transcript full of markup, terminal
// escapes and secrets, and returns its path.
func writeHostile(t *testing.T) string {
	t.Helper()
	s := fakeSecrets()
	env := func(typ, uuid, ts string) map[string]any {
		return map[string]any{"parentUuid": nil, "isSidechain": false, "userType": "external", "cwd": "/home/eve/app",
			"sessionId": "9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f", "version": "2.0.76", "type": typ, "uuid": uuid, "timestamp": ts}
	}
	var lines []string
	add := func(o map[string]any) {
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	u := env("user", "h1", "2026-04-01T10:00:00Z")
	u["message"] = map[string]any{"role": "user", "content": "<script>alert('title')</script> deploy it"}
	add(u)
	a := env("assistant", "h2", "2026-04-01T10:00:05Z")
	a["message"] = map[string]any{"id": "msg_h1", "role": "assistant", "model": "claude-x", "content": []any{
		map[string]any{"type": "text", "text": "Running </textarea><img src=x onerror=alert(1)> now"},
		map[string]any{"type": "tool_use", "id": "toolu_h1", "name": "Bash", "input": map[string]any{
			"command": "python deploy.py -H 'Authorization: Bearer " + s["jwt"] + "' --url https://admin:" + s["password"] +
				"@api.example.com/deploy --token " + s["github"] + " <script>alert(2)</script>"}}}}
	add(a)
	out := "usage: deploy.py [-h] [--env ENV]\n" +
		"deploy.py: error: unrecognized arguments: --token " + s["github"] + " \x1b]8;;javascript:alert(3)\x07click me\x1b]8;;\x07 \x1b[2J\x1b[H<script>alert(4)</script>\n" +
		"OPENAI_API_KEY=" + s["openai"] + "\nANTHROPIC_API_KEY=" + s["anthropic"] + "\nAWS_ACCESS_KEY_ID=" + s["aws"] + "\n" +
		"SLACK=" + s["slack"] + "\nHF=" + s["hf"] + "\n[link](javascript:alert(5)) `` ``` | pipe |\n" +
		"-----BEGIN RSA PRIVATE KEY-----\n" + s["key"] + "\n-----END RSA PRIVATE KEY-----\n"
	r := env("user", "h3", "2026-04-01T10:00:06Z")
	r["message"] = map[string]any{"role": "user", "content": []any{map[string]any{
		"tool_use_id": "toolu_h1", "type": "tool_result", "content": "Exit code 2\n" + out, "is_error": true}}}
	add(r)
	a = env("assistant", "h4", "2026-04-01T10:00:09Z")
	a["message"] = map[string]any{"id": "msg_h2", "role": "assistant", "model": "claude-x", "content": []any{
		map[string]any{"type": "tool_use", "id": "toolu_h2", "name": "Bash", "input": map[string]any{
			"command": "python deploy.py --env prod --password '" + s["password"] + "'"}}}}
	add(a)
	r = env("user", "h5", "2026-04-01T10:00:15Z")
	r["message"] = map[string]any{"role": "user", "content": []any{map[string]any{
		"tool_use_id": "toolu_h2", "type": "tool_result", "content": "deployed <b>bold</b>\nThroughput: 12.5 req/s", "is_error": false}}}
	add(r)
	path := filepath.Join(t.TempDir(), "hostile.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The tags the post-mortem page uses; anything else would be markup from a
// transcript.
var pageTags = map[string]bool{
	"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true, "main": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "p": true, "div": true, "b": true, "i": true, "span": true,
	"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "code": true, "pre": true,
	"details": true, "summary": true, "ul": true, "li": true, "blockquote": true, "script": true,
	"svg": true, "line": true, "rect": true, "circle": true, "text": true, "polyline": true, "path": true,
	"a": true, "mark": true, "section": true, "nav": true, "caption": true, "figure": true, "figcaption": true,
	"form": true, "label": true, "select": true, "option": true, "input": true, "output": true,
}

var tagRE = regexp.MustCompile(`<\/?([a-zA-Z][a-zA-Z0-9]*)`)

// TestHostileHTML checks that markup in a transcript never becomes markup
// in the HTML post-mortem, and escapes never reach it.
func TestHostileHTML(t *testing.T) {
	path := writeHostile(t)
	var stdout, stderr bytes.Buffer
	env := &Env{Stdin: &bytes.Buffer{}, Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
	if status := run([]string{"report", "-f", "html", path}, env); status != 0 {
		t.Fatalf("status %d: %s", status, stderr.String())
	}
	page := stdout.String()
	for _, m := range tagRE.FindAllStringSubmatch(page, -1) {
		if !pageTags[strings.ToLower(m[1])] {
			t.Errorf("the page holds a <%s> tag from the transcript", m[1])
		}
	}
	if n := strings.Count(page, "<script"); n != 1 {
		t.Errorf("the page holds %d scripts, want only its own", n)
	}
	if regexp.MustCompile(`(?i)<[a-z][^>]*\son[a-z]+=`).MatchString(page) {
		t.Error("the page holds an event handler attribute")
	}
	for _, m := range regexp.MustCompile(`(?i)\shref="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !regexp.MustCompile(`^#[a-z][a-z0-9-]*$`).MatchString(m[1]) {
			t.Errorf("the page links to %q, not to an anchor of its own", m[1])
		}
	}
	if strings.ContainsAny(page, "\x1b\x07") {
		t.Error("the page holds terminal escape sequences")
	}
	if !strings.Contains(page, "&lt;script&gt;alert(2)&lt;/script&gt;") {
		t.Error("the transcript's markup is not shown as escaped text")
	}
}

// TestRedaction runs every command in every format over the hostile
// transcript: no secret may reach the output, the masks must be there, the
// same key must give the same output, and --no-redact must show the
// secrets as they are.
func TestRedaction(t *testing.T) {
	path := writeHostile(t)
	runs := [][]string{
		{"summary"}, {"summary", "-f", "json"}, {"summary", "-f", "jsonl"},
		{"errors"}, {"errors", "-f", "json"}, {"errors", "-f", "jsonl"}, {"errors", "-f", "csv"},
		{"pairs"}, {"pairs", "-f", "json"}, {"pairs", "-f", "jsonl"}, {"pairs", "-f", "csv"},
		{"bench"}, {"bench", "-f", "json"}, {"bench", "-f", "csv"},
		{"lessons"}, {"lessons", "-f", "json"}, {"lessons", "-f", "markdown"},
		{"show"}, {"show", "-f", "json"},
		{"report"}, {"report", "-f", "html"},
	}
	key := func(k string) string {
		if k == redactKeyVar {
			return "fixed key for the test"
		}
		return ""
	}
	for _, args := range runs {
		name := strings.Join(args, " ")
		out := func(getenv func(string) string, extra ...string) string {
			var stdout, stderr bytes.Buffer
			env := &Env{Stdin: &bytes.Buffer{}, Stdout: &stdout, Stderr: &stderr, Getenv: getenv}
			argv := append(append(append([]string{}, args...), extra...), path)
			if status := run(argv, env); status != 0 {
				t.Fatalf("%s: status %d: %s", name, status, stderr.String())
			}
			return stdout.String() + stderr.String()
		}
		got := out(key)
		for kind, secret := range fakeSecrets() {
			if strings.Contains(got, secret) {
				t.Errorf("%s: the %s secret is in the output", name, kind)
			}
		}
		if tells := args[0] == "show" || args[0] == "report" || len(args) > 1 && (args[0] == "errors" || args[0] == "pairs"); tells && !strings.Contains(got, "[secret:") {
			t.Errorf("%s: no masks in the output", name)
		}
		if again := out(key); again != got {
			t.Errorf("%s: a second run with the same %s differs", name, redactKeyVar)
		}
		if name == "errors -f json" || args[0] == "show" {
			if raw := out(key, "--no-redact"); !strings.Contains(raw, fakeSecrets()["github"]) {
				t.Errorf("%s --no-redact: the token is not shown", name)
			}
		}
	}
}
