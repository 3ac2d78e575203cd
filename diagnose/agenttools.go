package diagnose

import (
	"slices"
	"strings"

	"github.com/retrace-dev/retrace/internal/prefilter"
	"github.com/retrace-dev/retrace/internal/termtext"
	"github.com/retrace-dev/retrace/parser"
)

// The agents' own tools (Read, Edit, WebFetch …) and their harness: the
// errors they report, and the words with which agents say that the user
// or a sandbox refused a call.

// Texts with which agents report that the user or a sandbox refused a call.
var rejectionPrefixes = []string{
	"The user doesn't want to proceed with this tool use",
	"The user doesn't want to take this action",
	"The user rejected permission to use this specific tool call",
	"[Request interrupted by user",
	"Permission to use ",
	"This command requires approval",
	"This Bash command contains multiple operations. The following part requires approval",
	"Claude requested permissions to",
	"[Operation Cancelled]",
	"The user rejected permission",
	"User chose to stay in plan mode", // ExitPlanMode declined
	// Claude Code's own check of a command line, before it runs: no
	// setting lets it through.
	"Glob patterns are not allowed in write operations",
	// Gemini CLI's shell tool refusing a command its settings do not
	// allow, or one that substitutes a command ($(…)).
	"Command is not allowed: ",
}

// blockedRE matches Claude Code refusing to work outside the session's
// directories: "cd to '…' was blocked", "mkdir in '…' was blocked".
var blockedRE = prefilter.MustCompile(`^\w+ (?:to|in) '[^']*' was blocked\. For security`)

// refused reports whether out is an agent's word that the user or a sandbox
// refused the call.
func refused(out string) bool {
	out = strings.TrimSpace(stripToolError(out))
	for _, p := range rejectionPrefixes {
		if strings.HasPrefix(out, p) {
			return true
		}
	}
	return blockedRE.MatchString(out)
}

// toolErrors are the answers of agent tools that report a failure without
// their error flag: Claude Code's WebFetch when the page and the prompt
// do not fit the model that reads them.
var toolErrors = []string{"Prompt is too long"}

// toolCategoryRE sends the errors of the agent's own tools that say what
// went wrong to the category that says it: a file the tool could not
// open, a page the server refused.
var toolCategories = []struct {
	re  *prefilter.Regexp
	cat Category
}{
	{prefilter.MustCompile(`(?i)^(?:EACCES|EPERM)\b|permission denied|operation not permitted|access is denied|status code 40[13]\b`), Permission},
	{prefilter.MustCompile(`(?i)^ENOENT\b|no such file or directory|^(?:Path|File|Directory) does not exist|status code 404\b`), MissingFile},
	{prefilter.MustCompile(`(?i)ECONNREFUSED|ENOTFOUND|ECONNRESET|getaddrinfo|connection refused|unable to connect`), Connection},
}

// toolFailure diagnoses a call of one of the agent's own tools (or a shell
// call whose arguments did not parse): its error flag and message say
// whether and why it failed.
func toolFailure(c *parser.Call, out string) *Diagnosis {
	msg := toolErrorMessage(out)
	if !c.IsError {
		if !slices.Contains(toolErrors, strings.TrimSpace(out)) {
			return nil
		}
		return &Diagnosis{Category: AgentToolError, Message: msg, Evidence: "the tool's answer says it failed"}
	}
	d := &Diagnosis{Category: AgentToolError, Message: msg, Evidence: "error flag"}
	for _, tc := range toolCategories {
		if tc.re.MatchString(msg) {
			d.Category = tc.cat
			break
		}
	}
	return d
}

// toolErrorMessage returns the first line of an agent tool's error, with
// the first issue Claude Code's InputValidationError lists on the next;
// or the first of the ERRORS SWE-agent's editor lists under its banner
// ("E999 IndentationError: unexpected indent").
func toolErrorMessage(out string) string {
	out = stripToolError(out)
	m := firstLine(out)
	if m == "" {
		return "the tool reported an error"
	}
	if _, errs, ok := strings.Cut(out, "\nERRORS:\n"); ok {
		if item, ok := strings.CutPrefix(firstLine(errs), "- "); ok && item != "" {
			return item
		}
	}
	if strings.HasSuffix(m, "following issue:") || strings.HasSuffix(m, "following issues:") {
		_, rest, _ := strings.Cut(out, "\n")
		if next := firstLine(rest); next != "" {
			m = termtext.Cut(m+" "+next, 200)
		}
	}
	return m
}

// stripToolError removes the <tool_use_error> tags Claude Code wraps tool
// errors in, and a leading "Error: ".
func stripToolError(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "<tool_use_error>")
	s = strings.TrimSuffix(s, "</tool_use_error>")
	return strings.TrimPrefix(strings.TrimSpace(s), "Error: ")
}
