package pipeline

import (
	"path/filepath"
	"strings"
)

// A Location is a folder where an agent keeps its transcripts.
type Location struct {
	Agent string // as the agent calls itself: "Claude Code", "Codex CLI"
	Path  string
}

// Locations lists the folders the agents write their transcripts to, as
// the environment getenv reads sets them, whether they exist or not.
func Locations(getenv func(string) string) []Location {
	home := getenv("HOME")
	var out []Location
	add := func(agent string, elem ...string) {
		if elem[0] != "" {
			out = append(out, Location{agent, filepath.Join(elem...)})
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
