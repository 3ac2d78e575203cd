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
	}{
		{`{"a":"text cut`, `{"a":"text cut"}`, true},
		{`{"a":[{"b":"x\`, `{"a":[{"b":"x"}]}`, true},
		{`{"a":"x\u12`, `{"a":"x"}`, true},
		{`{"a":"x\\`, `{"a":"x\\"}`, true},
		{`{"a":"x\\\`, `{"a":"x\\"}`, true},
		{`{"a":"x\u00e9`, `{"a":"x\u00e9"}`, true},
		{"{\"a\":\"caf\xc3", `{"a":"caf"}`, true},
		{`{"a":1,"b`, `{"a":1}`, true},
		{`{"a":1,"b":`, `{"a":1}`, true},
		{`{"a":1,`, `{"a":1}`, true},
		{`{"a":[1,2`, `{"a":[1]}`, true},
		{`{"a":[1,2,`, `{"a":[1,2]}`, true},
		{`{"a":{"b":tr`, `{"a":{}}`, true},
		{`{"a":{"b":true},"c":[`, `{"a":{"b":true},"c":[]}`, true},
		{`{"a":{"b":-`, `{"a":{}}`, true},
		{` {"a" : [ "x" , "y`, ` {"a" : [ "x" , "y"]}`, true},
		{`{`, `{}`, true},
		{`{"a":1}`, "", false},     // whole
		{`{"a":1} {"b`, "", false}, // whole, then more
		{`["a","b`, "", false},     // not an object
		{`{"a":x`, "", false},
		{`{"a":"x` + "\x01" + `y`, "", false},
		{`{"a" "b"`, "", false},
		{`{"a":1]`, "", false},
		{``, "", false},
	}
	for _, tt := range tests {
		got, ok := Complete(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Complete(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if ok && !json.Valid([]byte(got)) {
			t.Errorf("Complete(%q) = %q: not valid JSON", tt.in, got)
		}
	}
}

// FuzzComplete cuts valid objects everywhere: Complete must give valid
// JSON that starts as the cut does, but for what it drops at the end.
func FuzzComplete(f *testing.F) {
	for _, s := range []string{
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Task","input":{"description":"Build","prompt":"a \"b\" \\ \u00e9 \ud83d\ude00"}}]}}`,
		`{"a":[1,-2.5e3,true,false,null,{},[]],"b":{"c":""}}`,
		`{ "a" : [ 1 , 2 ] , "b" : "x" }`,
	} {
		f.Add(s, len(s)/2)
	}
	f.Fuzz(func(t *testing.T, s string, cut int) {
		got, ok := Complete(s)
		if ok && !Valid(got) {
			t.Fatalf("Complete(%q) = %q: not valid", s, got)
		}
		if !Valid(s) || cut < 0 || cut >= len(s) || strings.TrimSpace(s)[0] != '{' {
			return
		}
		cutShort := s[:cut]
		got, ok = Complete(cutShort)
		if strings.TrimSpace(cutShort) == "" || Valid(cutShort) {
			return // nothing yet, or the whole object before white space
		}
		if !ok {
			t.Fatalf("Complete(%q), cut from a valid object, failed", cutShort)
		}
		if !Valid(got) || !json.Valid([]byte(got)) {
			t.Fatalf("Complete(%q) = %q: not valid", cutShort, got)
		}
	})
}
