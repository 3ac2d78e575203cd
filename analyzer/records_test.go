package analyzer

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/retrace-dev/retrace/diagnose"
)

// jsonKeys returns the names of the members of the JSON object b, in order.
func jsonKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestRecordJSON checks the errors and bench objects that Failure and Bench
// write: every member of the output contract, in its order, <, > and &
// left to the encoder that writes them, and read back as they were.
func TestRecordJSON(t *testing.T) {
	var f Failure
	fill(reflect.ValueOf(&f).Elem())
	f.Message = "a <b> & c"
	var b Bench
	fill(reflect.ValueOf(&b).Elem())
	b.Label = "p99 <1 & 2>"
	b.Failed, b.Baseline, b.Line, b.Value = true, true, 3, 1.5
	f.Time = time.Date(2026, 3, 9, 12, 0, 0, 0, time.UTC)
	b.Time = f.Time
	for _, tt := range []struct {
		name string
		v    any
		back any
		keys string
	}{
		{"errors", &f, &Failure{}, "session call_id msg tool command target category parser message bad_flags valid_flags suggestions " +
			"fixed_by fixed_msg attempts choices missing exception program module exit_code evidence host sidechain time pos"},
		{"bench", &b, &Bench{}, "session call_id msg target label value unit context text failed line time baseline source"},
	} {
		var out bytes.Buffer
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(tt.v); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := jsonKeys(t, out.Bytes()); !slices.Equal(got, strings.Fields(tt.keys)) {
			t.Errorf("%s: members %q, want %q", tt.name, got, tt.keys)
		}
		if !bytes.Contains(out.Bytes(), []byte(" & ")) {
			t.Errorf("%s: & escaped in %s", tt.name, out.Bytes())
		}
		if err := json.Unmarshal(out.Bytes(), tt.back); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if diff := cmp.Diff(tt.v, tt.back, cmpopts.IgnoreUnexported(Failure{}, Bench{}, diagnose.Diagnosis{})); diff != "" {
			t.Errorf("%s: read back (-wrote +read):\n%s", tt.name, diff)
		}
	}
}
