package parser

import "strings"

// A Kind is the normalized kind of a tool, the same for every agent.
type Kind string

// The tool kinds.
const (
	KindShell  Kind = "shell"  // runs a shell command
	KindEdit   Kind = "edit"   // changes part of a file
	KindWrite  Kind = "write"  // writes a whole file
	KindRead   Kind = "read"   // reads a file
	KindSearch Kind = "search" // finds files or text: grep, glob, ls
	KindWeb    Kind = "web"    // fetches or searches the web
	KindTask   Kind = "task"   // starts a subagent
	KindOther  Kind = "other"  // anything else: todo lists, questions, MCP tools
)

// toolKinds maps lower-case tool names of every supported agent to their kind.
var toolKinds = map[string]Kind{
	"bash": KindShell, "shell": KindShell, "shell_command": KindShell, "exec_command": KindShell,
	"local_shell_call": KindShell, "run_shell_command": KindShell, "execute_bash": KindShell,
	"run": KindShell, "cmd_run": KindShell, "terminal": KindShell, "container.exec": KindShell,
	"command_execution": KindShell, "execute_command": KindShell, "cmdrunaction": KindShell,

	"edit": KindEdit, "multiedit": KindEdit, "notebookedit": KindEdit, "str_replace": KindEdit,
	"str_replace_editor": KindEdit, "str_replace_based_edit_tool": KindEdit, "replace": KindEdit,
	"apply_patch": KindEdit, "patch": KindEdit, "edit_file": KindEdit, "file_change": KindEdit,
	"fileeditaction": KindEdit, "edit_block": KindEdit, "insert": KindEdit,

	"write": KindWrite, "write_file": KindWrite, "create": KindWrite, "create_file": KindWrite,

	"read": KindRead, "read_file": KindRead, "view": KindRead, "read_many_files": KindRead,
	"open": KindRead, "fileread": KindRead, "filereadaction": KindRead, "view_image": KindRead,

	"grep": KindSearch, "glob": KindSearch, "ls": KindSearch, "list": KindSearch, "list_directory": KindSearch,
	"search_file_content": KindSearch, "find": KindSearch, "codebase_search": KindSearch,
	"grep_search": KindSearch, "find_file": KindSearch, "search_dir": KindSearch, "search_file": KindSearch,

	"webfetch": KindWeb, "websearch": KindWeb, "web_fetch": KindWeb, "google_web_search": KindWeb,
	"web_search": KindWeb, "web_search_call": KindWeb, "browse": KindWeb, "browseurlaction": KindWeb,

	"task": KindTask, "agent": KindTask,

	// The names Claude Code's and Gemini CLI's consoles show.
	"update": KindEdit, "web search": KindWeb, "readfile": KindRead, "writefile": KindWrite,
	"readmanyfiles": KindRead, "readfolder": KindSearch, "findfiles": KindSearch,
	"searchtext": KindSearch, "googlesearch": KindWeb,

	// SWE-agent's editor commands, OpenHands actions, other harnesses' shell tools.
	"goto": KindRead, "scroll_up": KindRead, "scroll_down": KindRead, "filemap": KindRead, "append": KindEdit,
	"browse_interactive": KindWeb, "browser": KindWeb, "web_read": KindWeb, "delegate": KindTask,
	"run_command": KindShell, "run_terminal_cmd": KindShell,
}

// KindOf returns the kind of the tool with the given name, as any supported
// agent spells it; unknown tools are KindOther.
func KindOf(tool string) Kind {
	if k, ok := toolKinds[strings.ToLower(tool)]; ok {
		return k
	}
	return KindOther
}
