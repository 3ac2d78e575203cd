// Package parser reads coding-agent transcripts into one model: a Session
// holding the agent's tool calls in order, each with its input, output, exit
// code and error flag, and the position in the file it came from.
//
// Formats are values in one ordered list (see Formats). Parse sniffs the first
// bytes of its input to pick one, or takes the one named by the caller, and
// hands the input to that format's decoder. Decoders stream where the format
// allows it, never fail on a malformed record (they skip it and record a
// SyntaxError in Session.Skipped), and return an error only when the input
// itself cannot be read. They read JSON through parser/internal/rawjson,
// which validates a record and picks out the members a decoder names in
// one pass.
package parser
