package parser

import (
	"io"
	"strings"
	"testing"
)

// TestEnvgymReader holds the lines an EnvGym log is read as: each item on
// the line where it starts, compacted, a repeat and every other line
// blank, so that a line of the result is the same line of the log.
func TestEnvgymReader(t *testing.T) {
	const rule = "==========\n"
	tests := []struct {
		name, in, want string
	}{
		{"an item and its repeat",
			rule + "{\n    \"repo\": \"r\"\n}\n[r][STDOUT]: {\n    \"type\": \"message\",\n    \"id\": \"m\"\n}\n[r][STDOUT]: {\n    \"type\": \"message\",\n    \"id\": \"m\"\n}\n" + rule,
			"\n\n\n\n" + `{"type":"message","id":"m"}` + "\n\n\n\n\n\n\n\n\n"},
		{"windows line ends",
			"==========\r\n[r][STDOUT]: {\r\n    \"id\": \"a\"\r\n}\r\n",
			"\n" + `{"id":"a"}` + "\n\n\n"},
		{"an item that does not close ends at the next",
			rule + "[r][STDOUT]: {\n    \"id\": \"a\",\n  }\n[r][STDOUT]: {\n    \"id\": \"b\"\n}\n",
			"\n" + `{     "id": "a",   }` + "\n\n\n" + `{"id":"b"}` + "\n\n\n"},
		{"an item cut by the end of the log",
			rule + "[r][STDOUT]: {\n    \"output\": \"cut",
			"\n" + `{     "output": "cut` + "\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := io.ReadAll(newEnvgymReader(strings.NewReader(tt.in)))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("read as\n%q\nwant\n%q", got, tt.want)
			}
			if n, m := strings.Count(string(got), "\n"), strings.Count(tt.in, "\n"); n < m {
				t.Errorf("%d lines, want the log's %d at least", n, m)
			}
		})
	}
}

// TestEnvgymLongItem: an item past maxEnvgymItem is handed over cut, as a
// malformed record, and its lines are still counted.
func TestEnvgymLongItem(t *testing.T) {
	defer func(m int) { maxEnvgymItem = m }(maxEnvgymItem)
	maxEnvgymItem = 40
	in := "==========\n[r][STDOUT]: {\n    \"output\": \"" + strings.Repeat("x", 100) + "\"\n}\n[r][STDOUT]: {\n    \"id\": \"b\"\n}\n"
	got, err := io.ReadAll(newEnvgymReader(strings.NewReader(in)))
	if err != nil {
		t.Fatal(err)
	}
	want := "\n{\n\n\n" + `{"id":"b"}` + "\n\n\n"
	if string(got) != want {
		t.Errorf("read as\n%q\nwant\n%q", got, want)
	}
}
