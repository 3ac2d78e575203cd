package rawjson

import (
	"iter"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// A Kind is the type of a JSON value.
type Kind uint8

// The kinds of values.
const (
	Missing Kind = iota // no value: a member an object lacks
	Null
	Bool
	Number
	String
	Object
	Array
)

// A Value is one JSON value, read in place: a slice of the text of the Doc
// it was read from. It, and the strings it gives, share that text's memory,
// but for the text of a string with escapes, which is decoded into memory
// of its own; Doc.Keep copies what lies in a Doc's text. The zero Value is
// Missing.
type Value struct {
	raw string
	doc *Doc // nil for a value read from no Doc
}

// Parse returns the value of s when s is valid JSON, as Valid decides: for
// JSON text a string holds. It is read from no Doc.
func Parse(s string) (Value, bool) {
	if !Valid(s) {
		return Value{}, false
	}
	return Value{root(s), nil}, true
}

// Peek returns the value s starts with, not validated, for recognizing a
// format from the first bytes of a file: they may end in the middle of a
// value, which then reads as gjson reads it, and a value that is not valid
// reads in some way that never fails. It is read from no Doc.
func Peek(s string) Value { return Value{root(s), nil} }

// Raw returns the JSON text of v; "" when v is Missing.
func (v Value) Raw() string { return v.raw }

// Exists reports whether v is a value, not Missing.
func (v Value) Exists() bool { return v.raw != "" }

// Kind returns the type of v, as the first byte of its text tells it.
func (v Value) Kind() Kind {
	if v.raw == "" {
		return Missing
	}
	switch v.raw[0] {
	case '"':
		return String
	case '{':
		return Object
	case '[':
		return Array
	case 't', 'f':
		return Bool
	case 'n':
		return Null
	}
	return Number
}

// Text returns v as gjson's String does: the text of a string, with its
// escapes decoded; the JSON text of a number, an object or an array
// (a number written with a fraction or an exponent in its shortest form);
// "true" or "false"; "" for null and for a Missing value.
func (v Value) Text() string {
	switch v.Kind() {
	case String:
		return unquote(v.raw)
	case Object, Array:
		return v.raw
	case Missing, Null:
		return ""
	}
	return v.result().String()
}

// Int returns v as an integer, as gjson's Int does: a number, the number
// a string holds, 1 for true; 0 otherwise.
func (v Value) Int() int64 { return v.result().Int() }

// Float returns v as a float, as gjson's Float does.
func (v Value) Float() float64 { return v.result().Float() }

// Bool returns v as a truth, as gjson's Bool does: true, a string that
// strconv.ParseBool reads as true, a number other than 0.
func (v Value) Bool() bool {
	switch v.Kind() {
	case Bool:
		return v.raw[0] == 't'
	case String:
		b, _ := strconv.ParseBool(strings.ToLower(v.Text()))
		return b
	case Number:
		return v.Float() != 0
	}
	return false
}

// result returns v as gjson reads it.
func (v Value) result() gjson.Result {
	if v.Kind() == String {
		return gjson.Result{Type: gjson.String, Raw: v.raw, Str: unquote(v.raw)}
	}
	return gjson.Parse(v.raw)
}

// Offset returns the offset of v in the text of its Doc; -1 for a value
// read from no Doc.
func (v Value) Offset() int { return v.doc.offset(v.raw) }

// Valid reports whether v is valid JSON, as Valid decides: a value of a
// document cut short may end early. A value of a Doc that was validated
// (by Index or Record) is, and is not validated again.
func (v Value) Valid() bool { return v.doc != nil && v.doc.valid || Valid(v.raw) }

// Get returns the value of the first member of v named name, as gjson.Get
// finds it; Missing when there is none or v is no object.
func (v Value) Get(name string) Value {
	var out Value
	v.doc.eachMember(v.raw, 0, func(key, val string) bool {
		if keyIs(key, name) {
			out = Value{val, v.doc}
			return false
		}
		return true
	})
	return out
}

// Path returns the value at a path of member names in v, as gjson.Get(v,
// "name.name…") finds it: a member named path[0] that does not hold the
// rest of the path is passed over for a later one so named, and in an
// array, a name of digits is an index.
func (v Value) Path(path ...string) Value {
	if raw := v.doc.dig(v.raw, path); raw != "" {
		return Value{raw, v.doc}
	}
	return Value{}
}

// Members yields the name and the value of each member of v, in order,
// names repeated as they are; nothing when v is no object.
func (v Value) Members() iter.Seq2[string, Value] {
	return func(yield func(string, Value) bool) { v.eachMember(yield) }
}

// eachMember does what the iterator of Members does.
func (v Value) eachMember(yield func(string, Value) bool) {
	v.doc.eachMember(v.raw, 0, func(key, val string) bool {
		if strings.IndexByte(key, '\\') >= 0 {
			key = unquoteBody(key)
		}
		return yield(key, Value{val, v.doc})
	})
}

// Elements yields each element of v, in order; nothing when v is no
// array.
func (v Value) Elements() iter.Seq[Value] {
	return func(yield func(Value) bool) { v.eachElement(yield) }
}

// eachElement does what the iterator of Elements does.
func (v Value) eachElement(yield func(Value) bool) {
	v.doc.eachElement(v.raw, 0, func(val string) bool {
		return yield(Value{val, v.doc})
	})
}

// Values yields what gjson's ForEach gives: each element of an array, the
// value of each member of an object, or v itself; nothing for Missing.
func (v Value) Values() iter.Seq[Value] {
	return func(yield func(Value) bool) { v.eachValue(yield) }
}

// eachValue does what the iterator of Values does.
func (v Value) eachValue(yield func(Value) bool) {
	switch v.Kind() {
	case Missing:
	case Array:
		v.eachElement(yield)
	case Object:
		v.doc.eachMember(v.raw, 0, func(_, val string) bool {
			return yield(Value{val, v.doc})
		})
	default:
		yield(v)
	}
}
