package analyzer

import (
	"regexp"
	"strings"
)

// testFailures find the line in which a test runner reports a failure. The
// name of the first failed test tells most, so its patterns come first;
// then the summaries with counts, for runners that name no test.
var testFailures = []*regexp.Regexp{
	regexp.MustCompile(`(?m)^(--- FAIL: .*)$`),                                        // go test
	regexp.MustCompile(`(?m)^(FAILED \S+::.*)$`),                                      // pytest short summary
	regexp.MustCompile(`(?m)^(test \S+ \.\.\. FAILED)$`),                              // cargo test
	regexp.MustCompile(`(?m)^\s*(FAIL\s+\S+\.[cm]?[jt]sx?\b.*)$`),                     // jest, vitest
	regexp.MustCompile(`(?m)^=+ (.*\b\d+ (?:failed|errors?)\b.*?) =+$`),               // pytest
	regexp.MustCompile(`(?m)^(\d+ (?:failed|errors?)(?:, \d+ \w+)* in [\d.]+s\b.*)$`), // pytest -q
	regexp.MustCompile(`(?m)^\s*(Tests?:?\s+\d+ failed\b.*)$`),                        // jest, vitest
	regexp.MustCompile(`(?m)^(test result: FAILED\..*)$`),                             // cargo test
	regexp.MustCompile(`(?m)^\s*(\d+ failing)$`),                                      // mocha
	regexp.MustCompile(`(?m)^(FAIL\t\S+.*|FAIL \S+ \[build failed\])$`),               // go test, per package
	regexp.MustCompile(`(?m)^(Tests run: \d+, Failures: [1-9]\d*.*|BUILD FAILURE)$`),  // maven
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
