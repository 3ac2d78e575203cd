// Package pipeline reads the transcripts a command names and hands the
// command the report of each session, in the order of its inputs: it finds
// them (files, folders searched in lexical order, standard input, opencode
// data folders and databases), decompresses gzip and zstd, decodes several
// files at once, masks the secrets they hold and analyzes each session
// beside its decoder.
//
// A command says in one Needs value what it needs: which numbers, whether a
// long session may come in parts, whether retrace's own JSONL output is read
// back, which texts are printed and so must be masked. Each hands the
// reports one at a time, as they are ready, for a command that keeps only
// what it prints; Load gathers them into one analyzer.Report.
//
// One transcript goes through it so:
//
//  1. found by the paths named, or passed over when it is older than the
//     Period asked for;
//  2. opened, decompressed (a decompression bomb is stopped), and turned
//     into UTF-8 when it is UTF-16;
//  3. decoded by parser.Parse, which hands each call, once decoded, to a
//     second goroutine that masks its texts (redact) and analyzes it
//     (analyzer.SessionStream), so that outputs are let go as they are
//     analyzed;
//  4. masked once read whole: the names of its calls, and every secret an
//     earlier input taught;
//  5. handed to the command when it and every input before it are done.
//
// Problems with the inputs are told as Messages, with their secrets
// masked; the command prints them. The pipeline never writes to its
// inputs.
package pipeline
