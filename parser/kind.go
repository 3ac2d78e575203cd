package parser

import "strings"

// A Kind is the normalized kind of a tool, the same for every agent.
type Kind string

// The tool kinds.
const (
	Shell  Kind = "shell"  // runs a shell command
	Edit   Kind = "edit"   // changes part of a file
	Write  Kind = "write"  // writes a whole file
	Read   Kind = "read"   // reads a file
	Search Kind = "search" // finds files or text: grep, glob, ls
	Web    Kind = "web"    // fetches or searches the web
	Task   Kind = "task"   // starts a subagent
	Other  Kind = "other"  // anything else: todo lists, questions, MCP tools
)

// toolKinds maps lower-case tool names of every supported agent to their kind.
var toolKinds = map[string]Kind{
	"bash": Shell, "shell": Shell, "shell_command": Shell, "exec_command": Shell,
	"local_shell_call": Shell, "run_shell_command": Shell, "execute_bash": Shell,
	"run": Shell, "cmd_run": Shell, "terminal": Shell, "container.exec": Shell,
	"command_execution": Shell, "execute_command": Shell, "cmdrunaction": Shell,

	"edit": Edit, "multiedit": Edit, "notebookedit": Edit, "str_replace": Edit,
	"str_replace_editor": Edit, "str_replace_based_edit_tool": Edit, "replace": Edit,
	"apply_patch": Edit, "patch": Edit, "edit_file": Edit, "file_change": Edit,
	"fileeditaction": Edit, "edit_block": Edit, "insert": Edit,

	"write": Write, "write_file": Write, "create": Write, "create_file": Write,

	"read": Read, "read_file": Read, "view": Read, "read_many_files": Read,
	"open": Read, "fileread": Read, "filereadaction": Read, "view_image": Read,

	"grep": Search, "glob": Search, "ls": Search, "list": Search, "list_directory": Search,
	"search_file_content": Search, "find": Search, "codebase_search": Search,
	"grep_search": Search, "find_file": Search, "search_dir": Search, "search_file": Search,

	"webfetch": Web, "websearch": Web, "web_fetch": Web, "google_web_search": Web,
	"web_search": Web, "web_search_call": Web, "browse": Web, "browseurlaction": Web,

	"task": Task, "agent": Task,

	// The names Claude Code's and Gemini CLI's consoles show.
	"update": Edit, "web search": Web, "readfile": Read, "writefile": Write,
	"readmanyfiles": Read, "readfolder": Search, "findfiles": Search,
	"searchtext": Search, "googlesearch": Web,

	// SWE-agent's editor commands, OpenHands actions, other harnesses' shell tools.
	"goto": Read, "scroll_up": Read, "scroll_down": Read, "filemap": Read, "append": Edit,
	"browse_interactive": Web, "browser": Web, "web_read": Web, "delegate": Task,
	"run_command": Shell, "run_terminal_cmd": Shell,
}

// KindOf returns the kind of the tool with the given name, as any supported
// agent spells it; unknown tools are Other.
func KindOf(tool string) Kind {
	if k, ok := toolKinds[strings.ToLower(tool)]; ok {
		return k
	}
	return Other
}
