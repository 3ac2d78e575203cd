package analyzer

import (
	"strings"
)

// testFailures find the line in which a test runner reports a failure. The
// name of the first failed test tells most, so its patterns come first;
// then the summaries with counts, for runners that name no test.
var testFailures = []*pre{
	mustPre(`(?m)^(--- FAIL: .*)$`),                                        // go test
	mustPre(`(?m)^(FAILED \S+::.*)$`),                                      // pytest short summary
	mustPre(`(?m)^(test \S+ \.\.\. FAILED)$`),                              // cargo test
	mustPre(`(?m)^\s*(FAIL\s+\S+\.[cm]?[jt]sx?\b.*)$`),                     // jest, vitest
	mustPre(`(?m)^=+ (.*\b\d+ (?:failed|errors?)\b.*?) =+$`),               // pytest
	mustPre(`(?m)^(\d+ (?:failed|errors?)(?:, \d+ \w+)* in [\d.]+s\b.*)$`), // pytest -q
	mustPre(`(?m)^\s*(Tests?:?\s+\d+ failed\b.*)$`),                        // jest, vitest
	mustPre(`(?m)^(test result: FAILED\..*)$`),                             // cargo test
	mustPre(`(?m)^\s*(\d+ failing)$`),                                      // mocha
	mustPre(`(?m)^(FAIL\t\S+.*|FAIL \S+ \[build failed\])$`),               // go test, per package
	mustPre(`(?m)^(Tests run: \d+, Failures: [1-9]\d*.*|BUILD FAILURE)$`),  // maven
}

// matchTests recognizes a test runner reporting failed tests.
func matchTests(out string, _ *Command, _ bool) *Diagnosis {
	for _, re := range testFailures {
		if m := re.FindStringSubmatch(out); m != nil {
			return &Diagnosis{Category: TestFailure, Message: cut(strings.TrimSpace(m[1]), 200)}
		}
	}
	return nil
}
