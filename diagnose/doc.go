// Package diagnose says whether a tool call failed and why: Call reads the
// call's record (its exit status, the agent's error flag or status) and
// its output, and gives a Diagnosis: a Category (cli-usage, exception,
// timeout …), the one-line error, what showed it (the Evidence), and the
// details a reviewer wants: for a usage error the flags rejected and
// those the usage text offers, for an exception its type and the
// project's innermost frame.
//
// The output is read against signatures, tried in order (rules.go): the
// usage errors of CLI parsers (argparse, click, Go's flag, cobra, clap …),
// tracebacks and panics, test runners, compilers and build tools, the
// shell's own errors, then the general ones (permission, missing file,
// connection). A signature counts under a zero exit status only when it
// is unmistakable, or when the line hides the status (`cmd 2>&1 | tail`).
// Each case is in testdata/failures, and README.md names every signature.
package diagnose
