// Package rawjson reads JSON values in place, for the decoders of the
// parser: a Value is a slice of the text it was read from, and says what it
// holds (Kind), its text, number or truth, and its members and elements,
// which are read only when asked for.
//
// It is built for transcripts, whose bytes are mostly long strings (tool
// outputs, file contents, images) in records of a few members:
//
//   - Valid accepts what gjson.ValidBytes accepts, but nested at most
//     MaxDepth levels deep, and checks strings eight bytes at a time.
//   - Doc.Record validates a record and, in the same pass, picks out the
//     members a decoder reads by name (Names, Fields).
//   - Index validates a whole document and records where its long values
//     end, so that walking it level by level reads each byte about twice.
//   - A long string's text can be read at its ends only (Value.TextHead,
//     TextTail, TextLen), without decoding all of it.
//   - Peek reads the first bytes of a file without validating them, for
//     recognizing its format, as lazily as gjson does.
//
// Values read as gjson reads them: a member is the first of its name, a
// path passes over a member that does not hold the rest of it for a later
// one of the same name, and a document cut short (see Prefix) reads as
// gjson reads it. The package's tests hold it to gjson.
//
// A Value shares the memory of the text it was read from, and so do the
// strings it gives, but for the text of a string with escapes, which is
// decoded into memory of its own. A decoder that reuses the buffer a Doc
// was read from keeps what it needs through Doc.Keep.
package rawjson
