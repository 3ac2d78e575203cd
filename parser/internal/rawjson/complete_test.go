package rawjson

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestComplete(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
		key      string // the Key of the Cut
	}{
		{`{"a":"text cut`, `{"a":"text cut"}`, true, "a"},
		{`{"a":[{"b":"x\`, `{"a":[{"b":"x"}]}`, true, "b"},
		{`{"a":"x\u12`, `{"a":"x"}`, true, "a"},
		{`{"a":"x\\`, `{"a":"x\\"}`, true, "a"},
		{`{"a":"x\\\`, `{"a":"x\\"}`, true, "a"},
		{`{"a":"x\u00e9`, `{"a":"x\u00e9"}`, true, "a"},
		{"{\"a\":\"caf\xc3", `{"a":"caf"}`, true, "a"},
		{`{"input":{"command":"ls","desc\u0072iption":"List`, `{"input":{"command":"ls","desc\u0072iption":"List"}}`, true, "description"},
		{`{"a":{"b":1},"c":["x","y`, `{"a":{"b":1},"c":["x","y"]}`, true, ""},
		{`{"a":1,"b`, `{"a":1}`, true, ""},
		{`{"a":1,"b":`, `{"a":1}`, true, ""},
		{`{"a":1,`, `{"a":1}`, true, ""},
		{`{"a":[1,2`, `{"a":[1]}`, true, ""},
		{`{"a":[1,2,`, `{"a":[1,2]}`, true, ""},
		{`{"a":{"b":tr`, `{"a":{}}`, true, ""},
		{`{"a":{"b":true},"c":[`, `{"a":{"b":true},"c":[]}`, true, ""},
		{`{"a":{"b":-`, `{"a":{}}`, true, ""},
		{` {"a" : [ "x" , "y`, ` {"a" : [ "x" , "y"]}`, true, ""},
		{`{`, `{}`, true, ""},
		{`{"a":1}`, "", false, ""},     // whole
		{`{"a":1} {"b`, "", false, ""}, // whole, then more
		{`["a","b`, "", false, ""},     // not an object
		{`{"a":x`, "", false, ""},
		{`{"a":"x` + "\x01" + `y`, "", false, ""},
		{`{"a" "b"`, "", false, ""},
		{`{"a":1]`, "", false, ""},
		{``, "", false, ""},
	}
	for _, tt := range tests {
		got, cut, ok := Complete(tt.in)
		if got != tt.want || ok != tt.ok || cut.Key != tt.key {
			t.Errorf("Complete(%q) = %q, key %q, %v; want %q, key %q, %v", tt.in, got, cut.Key, ok, tt.want, tt.key, tt.ok)
		}
		if ok && (cut.At > len(tt.in) || got[:cut.At] != tt.in[:cut.At]) {
			t.Errorf("Complete(%q) = %q: does not start with the %d bytes it says it keeps", tt.in, got, cut.At)
		}
		if ok && !json.Valid([]byte(got)) {
			t.Errorf("Complete(%q) = %q: not valid JSON", tt.in, got)
		}
	}
}

// FuzzComplete cuts valid objects everywhere: Complete must give valid
// JSON that starts with the bytes of the cut it says it keeps.
func FuzzComplete(f *testing.F) {
	for _, s := range []string{
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Task","input":{"description":"Build","prompt":"a \"b\" \\ \u00e9 \ud83d\ude00"}}]}}`,
		`{"a":[1,-2.5e3,true,false,null,{},[]],"b":{"c":""}}`,
		`{ "a" : [ 1 , 2 ] , "b" : "x" }`,
	} {
		f.Add(s, len(s)/2)
	}
	f.Fuzz(func(t *testing.T, s string, end int) {
		got, cut, ok := Complete(s)
		if ok && (!Valid(got) || cut.At > len(s) || got[:cut.At] != s[:cut.At]) {
			t.Fatalf("Complete(%q) = %q, %+v: not valid, or not its start", s, got, cut)
		}
		if !Valid(s) || end < 0 || end >= len(s) || strings.TrimSpace(s)[0] != '{' {
			return
		}
		cutShort := s[:end]
		got, cut, ok = Complete(cutShort)
		if strings.TrimSpace(cutShort) == "" || Valid(cutShort) {
			return // nothing yet, or the whole object before white space
		}
		if !ok {
			t.Fatalf("Complete(%q), cut from a valid object, failed", cutShort)
		}
		if !Valid(got) || !json.Valid([]byte(got)) || got[:cut.At] != cutShort[:cut.At] {
			t.Fatalf("Complete(%q) = %q, %+v: not valid, or not its start", cutShort, got, cut)
		}
	})
}
