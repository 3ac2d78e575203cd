// Package analyzer turns the sessions the parser reads into the findings
// retrace reports: the failed calls, the chains that pair each failure
// with its retries and its fix, the benchmark numbers, and across
// sessions the lessons, the summary and the timelines of each metric.
//
// One session goes through it in two passes. A SessionStream takes the
// calls as the decoder finishes them (AnalyzeSession gives it all of them
// at once), and Add finds each call's facts: its shell command
// (shell.Parse, remembered for lines that repeat), its target, whether and
// why it failed (diagnose.Call, and the command the error blames), and
// the numbers it printed (bench.Measured and bench.Read). The output is
// then let go: no later pass reads it. Report runs what needs the whole
// session: each diagnosis becomes a Failure; pairing (pair.go) follows
// each failure into a Chain, through the retries of the same target to
// the call that fixed it, gives the calls between their roles, says what
// the fix changed (its Diff) and what the detour cost; the numbers become
// Bench records, with the baselines the assistant stated. With
// StreamOptions.Part the report of a long session comes in parts, cut
// where no chain crosses.
//
// Across sessions, Combine makes the Report the renderers read: the
// Lessons, the corrections of usage errors made, most frequent first; the
// Summary of what was found; and the Timelines that follow each metric
// through its runs, across sessions and in each. ReadJSONL reads the
// records `retrace pairs` and `retrace bench` write back into reports, so
// that shards analysed apart merge; MapStrings lets redaction mask every
// text a report holds.
package analyzer
