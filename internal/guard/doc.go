// Package guard stops a coding agent from repeating a mistake that it, or an
// earlier session, already corrected. It is what `retrace guard` and
// `retrace learn` run.
//
// An agent runs `retrace guard` before and after each tool call and hands it
// the call as JSON (a Payload). Before a shell call, the guard parses the
// command as the analyzer does and checks it against the lessons that
// apply: those of the session's own transcript so far, read incrementally
// (a Tracker keeps a small state per transcript, so that only what was
// appended is read), and those `retrace learn` kept in the Store. A flag or
// value that a confirmed lesson says the target rejects blocks the call,
// with one reason the model can act on. After a failed call, the fix that an
// earlier chain found for the same failure is handed back as context.
//
// The package adds no analysis of its own: transcripts are read with the
// parser package, commands are parsed, failures diagnosed and chains and
// lessons drawn with the analyzer's public API.
package guard
