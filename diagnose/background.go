package diagnose

import (
	"github.com/retrace-dev/retrace/internal/prefilter"
	"github.com/retrace-dev/retrace/parser"
	"github.com/retrace-dev/retrace/shell"
)

// Two outcomes of a command that ran longer than the agent waited for it.
// A server started in the foreground runs until the agent's timeout stops
// it: when it printed its ready line first, it did what it was asked, and
// the timeout is not its failure. A command the agent's timeout (or the
// user) moved to the background and that failed later with nothing in its
// output to name the failure had hung: a timeout.

// readyLineRE matches the line with which a server says it is up:
// "listening on :8080", "Chart server running at http://localhost:8080/",
// Vite's "ready in 388 ms", "Data Capture Service started successfully",
// Django's "Starting development server at http://127.0.0.1:8000/".
var readyLineRE = prefilter.MustCompile(`(?im)^.*\b(?:listening (?:on|at)\b|running (?:at|on) \S+|server (?:has )?started\b|started successfully|ready in \d|starting development server at\b|application startup complete|serving http on\b).*$`)

// agentTimeout is the rule that recognizes the agents' own timeout markers.
var agentTimeout = ruleNamed("agent-timeout")

// servedUntilTimeout reports whether out, the output of cmd, is that of a
// server that printed its ready line and ran until the agent's timeout
// stopped it.
func servedUntilTimeout(out string, cmd *shell.Command) bool {
	// The marker first: its rule's pre-filter rules out most outputs
	// at once.
	return agentTimeout.match(out, cmd, false) != nil && readyLineRE.MatchString(out)
}

// movedToBackground says how c came to run in the background when it
// outlived the agent's timeout or the user moved it there; "" otherwise.
func movedToBackground(c *parser.Call) string {
	switch c.Background {
	case parser.BackgroundTimeout:
		return "moved to the background when it outlived the agent's timeout"
	case parser.BackgroundUser:
		return "moved to the background by the user while it ran"
	}
	return ""
}

// ruleNamed returns the rule of that name; it panics when there is none.
func ruleNamed(name string) *rule {
	for i := range rules {
		if rules[i].name == name {
			return &rules[i]
		}
	}
	panic("analyzer: no rule " + name)
}
