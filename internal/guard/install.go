package guard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// events lists, for each agent, the hook events the guard runs on and the
// matcher that picks its shell tool: Claude Code's and Codex CLI's
// PreToolUse and PostToolUse (and Claude Code's PostToolUseFailure) on
// Bash, Gemini CLI's BeforeTool and AfterTool on run_shell_command.
var events = map[string][]string{
	ClaudeCode: {"PreToolUse", "PostToolUse", "PostToolUseFailure"},
	Codex:      {"PreToolUse", "PostToolUse"},
	Gemini:     {"BeforeTool", "AfterTool"},
}

// SettingsFile returns the file that holds agent's hooks: the user's, or
// with project the one of the project in the current folder. home is the
// user's home folder; codexHome is $CODEX_HOME, or empty.
func SettingsFile(agent string, project bool, home, codexHome string) string {
	switch agent {
	case ClaudeCode:
		if project {
			return filepath.Join(".claude", "settings.json")
		}
		return filepath.Join(home, ".claude", "settings.json")
	case Codex:
		if project {
			return filepath.Join(".codex", "hooks.json")
		}
		if codexHome == "" {
			codexHome = filepath.Join(home, ".codex")
		}
		return filepath.Join(codexHome, "hooks.json")
	case Gemini:
		if project {
			return filepath.Join(".gemini", "settings.json")
		}
		return filepath.Join(home, ".gemini", "settings.json")
	}
	return ""
}

// Install returns the settings with the hooks that run command for agent
// added, keeping everything else as it is, in its order: for each event,
// {"matcher": TOOL, "hooks": [{"type": "command", "command": command}]}.
// Hooks that already run the guard are left as they are; changed reports
// whether any was added. Empty settings are an empty object: Install(nil,
// …) is the configuration alone.
func Install(settings []byte, agent, command string) (_ []byte, changed bool, _ error) {
	evs, ok := events[agent]
	if !ok {
		return nil, false, fmt.Errorf("unknown agent %q (%s)", agent, strings.Join(Agents, ", "))
	}
	root, hooks, err := hooksOf(settings)
	if err != nil {
		return nil, false, err
	}
	for _, ev := range evs {
		var groups []json.RawMessage
		if raw, ok := hooks.get(ev); ok {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return nil, false, fmt.Errorf("hooks.%s is not a list: %w", ev, err)
			}
		}
		if !slicesAny(groups, runsGuard) {
			changed = true
			type handler struct {
				Type    string `json:"type"`
				Command string `json:"command"`
			}
			group, err := json.Marshal(struct {
				Matcher string    `json:"matcher"`
				Hooks   []handler `json:"hooks"`
			}{shellTools[agent], []handler{{"command", command}}})
			if err != nil {
				return nil, false, err
			}
			groups = append(groups, group)
		}
		if err := hooks.set(ev, groups); err != nil {
			return nil, false, err
		}
	}
	if err := root.set("hooks", hooks); err != nil {
		return nil, false, err
	}
	b, err := root.indent()
	return b, changed, err
}

// Uninstall returns the settings without the hooks that run the guard,
// and whether there were any; matcher groups and events left empty are
// removed, everything else is kept as it is.
func Uninstall(settings []byte) ([]byte, bool, error) {
	root, hooks, err := hooksOf(settings)
	if err != nil {
		return nil, false, err
	}
	removed := false
	var left object
	for _, m := range hooks {
		var groups []json.RawMessage
		if json.Unmarshal(m.Value, &groups) != nil {
			left = append(left, m)
			continue
		}
		var kept []json.RawMessage
		for _, g := range groups {
			if runsGuard(g) {
				removed = true
				continue
			}
			kept = append(kept, g)
		}
		switch {
		case len(kept) == len(groups):
			left = append(left, m)
			continue
		case len(kept) == 0:
			continue
		}
		if err := left.set(m.Key, kept); err != nil {
			return nil, false, err
		}
	}
	if !removed {
		return settings, false, nil
	}
	if len(left) == 0 {
		root.delete("hooks")
	} else if err := root.set("hooks", left); err != nil {
		return nil, false, err
	}
	b, err := root.indent()
	return b, true, err
}

// hooksOf reads settings and their "hooks" object.
func hooksOf(settings []byte) (root, hooks object, err error) {
	if len(bytes.TrimSpace(settings)) == 0 {
		settings = []byte("{}")
	}
	if root, err = readObject(settings); err != nil {
		return nil, nil, fmt.Errorf("the settings are not a JSON object: %w", err)
	}
	if raw, ok := root.get("hooks"); ok {
		if hooks, err = readObject(raw); err != nil {
			return nil, nil, fmt.Errorf("the settings' \"hooks\" is not a JSON object: %w", err)
		}
	}
	return root, hooks, nil
}

// runsGuard reports whether the matcher group g holds only hooks that run
// `retrace guard`.
func runsGuard(g json.RawMessage) bool {
	var group struct {
		Hooks []struct {
			Command string `json:"command"`
		} `json:"hooks"`
	}
	if json.Unmarshal(g, &group) != nil || len(group.Hooks) == 0 {
		return false
	}
	for _, h := range group.Hooks {
		f := strings.Fields(h.Command)
		if len(f) < 2 || strings.TrimSuffix(filepath.Base(f[0]), ".exe") != "retrace" || f[1] != "guard" {
			return false
		}
	}
	return true
}

func slicesAny(groups []json.RawMessage, f func(json.RawMessage) bool) bool {
	for _, g := range groups {
		if f(g) {
			return true
		}
	}
	return false
}

// An object is a JSON object with its members in their order, each value
// kept as it was written.
type object []member

type member struct {
	Key   string
	Value json.RawMessage
}

// readObject reads a JSON object.
func readObject(b []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("it does not start with {")
	}
	var o object
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o = append(o, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("more follows the object")
	}
	return o, nil
}

func (o object) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

// set gives key the value v, in its place, or last when it is new.
func (o *object) set(key string, v any) error {
	raw, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if ob, isObj := v.(object); isObj {
			raw, err = ob.marshal()
		} else {
			raw, err = json.Marshal(v)
		}
		if err != nil {
			return err
		}
	}
	for i := range *o {
		if (*o)[i].Key == key {
			(*o)[i].Value = raw
			return nil
		}
	}
	*o = append(*o, member{key, raw})
	return nil
}

func (o *object) delete(key string) {
	for i := range *o {
		if (*o)[i].Key == key {
			*o = append((*o)[:i], (*o)[i+1:]...)
			return
		}
	}
}

// marshal writes o compactly.
func (o object) marshal() (json.RawMessage, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, err := json.Marshal(m.Key)
		if err != nil {
			return nil, err
		}
		buf.Write(k)
		buf.WriteByte(':')
		if err := json.Compact(&buf, m.Value); err != nil {
			return nil, err
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// indent writes o indented by two spaces, with a final newline.
func (o object) indent() ([]byte, error) {
	raw, err := o.marshal()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// Save writes settings to file, keeping its old content, when it had one,
// in a backup beside it: FILE.bak, or FILE.bak.N when that exists. It
// returns the backup's name, or "" when there was nothing to keep.
func Save(file string, old, settings []byte) (string, error) {
	perm := fs.FileMode(0o644)
	backup := ""
	if fi, err := os.Stat(file); err == nil {
		perm = fi.Mode().Perm()
		backup = file + ".bak"
		for n := 2; ; n++ {
			if _, err := os.Lstat(backup); errors.Is(err, fs.ErrNotExist) {
				break
			}
			backup = file + ".bak." + strconv.Itoa(n)
		}
		if err := writeFile(backup, old, perm); err != nil {
			return "", err
		}
	}
	return backup, writeFile(file, settings, perm)
}
