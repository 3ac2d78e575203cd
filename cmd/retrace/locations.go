package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// A location is a folder where an agent keeps its transcripts.
type location struct {
	agent string
	path  string
}

// defaultLocations lists the folders the agents write their transcripts
// to, as this environment sets them.
func defaultLocations(getenv func(string) string) []location {
	home := getenv("HOME")
	var out []location
	add := func(agent string, elem ...string) {
		if elem[0] != "" {
			out = append(out, location{agent, filepath.Join(elem...)})
		}
	}
	if dirs := getenv("CLAUDE_CONFIG_DIR"); dirs != "" {
		for d := range strings.SplitSeq(dirs, ",") {
			add("Claude Code", strings.TrimSpace(d), "projects")
		}
	} else if home != "" {
		add("Claude Code", home, ".claude", "projects")
		add("Claude Code", home, ".config", "claude", "projects")
	}
	codex := getenv("CODEX_HOME")
	if codex == "" && home != "" {
		codex = filepath.Join(home, ".codex")
	}
	if codex != "" {
		add("Codex CLI", codex, "sessions")
		add("Codex CLI", codex, "archived_sessions")
	}
	if home != "" {
		add("Gemini CLI", home, ".gemini", "tmp")
	}
	if data := getenv("XDG_DATA_HOME"); data != "" {
		add("opencode", data, "opencode")
	} else if home != "" {
		add("opencode", home, ".local", "share", "opencode")
	}
	return out
}

// defaultPaths returns the default locations that exist, saying on stderr
// which were found.
func defaultPaths(env *Env, w *warner) ([]string, error) {
	var tried, found []string
	for _, loc := range defaultLocations(env.Getenv) {
		tried = append(tried, loc.path)
		if fi, err := os.Stat(loc.path); err == nil && fi.IsDir() {
			found = append(found, loc.path)
			w.warn("retrace: reading %s sessions in %s", loc.agent, loc.path)
		}
	}
	if len(found) == 0 {
		return nil, errors.Join(usageError("no transcripts found in the default locations ("+strings.Join(tried, ", ")+")."),
			usageError("Name transcript files or directories: retrace summary PATH..."))
	}
	return found, nil
}
