package diagnose

import (
	"strings"

	"github.com/retrace-dev/retrace/internal/prefilter"
	"github.com/retrace-dev/retrace/internal/termtext"
	"github.com/retrace-dev/retrace/shell"
)

// testFailures find the line in which a test runner reports a failure. The
// name of the first failed test tells most, so its patterns come first;
// then the summaries with counts, for runners that name no test.
var testFailures = []*prefilter.Regexp{
	prefilter.MustCompile(`(?m)^(--- FAIL: .*)$`),                                        // go test
	prefilter.MustCompile(`(?m)^(FAILED \S+::.*)$`),                                      // pytest short summary
	prefilter.MustCompile(`(?m)^(test \S+ \.\.\. FAILED)$`),                              // cargo test
	prefilter.MustCompile(`(?m)^\s*(FAIL\s+\S+\.[cm]?[jt]sx?\b.*)$`),                     // jest, vitest
	prefilter.MustCompile(`(?m)^=+ (.*\b\d+ (?:failed|errors?)\b.*?) =+$`),               // pytest
	prefilter.MustCompile(`(?m)^(\d+ (?:failed|errors?)(?:, \d+ \w+)* in [\d.]+s\b.*)$`), // pytest -q
	prefilter.MustCompile(`(?m)^\s*(Tests?:?\s+\d+ failed\b.*)$`),                        // jest, vitest
	prefilter.MustCompile(`(?m)^(test result: FAILED\..*)$`),                             // cargo test
	prefilter.MustCompile(`(?m)^\s*(\d+ failing)$`),                                      // mocha
	prefilter.MustCompile(`(?m)^(FAIL\t\S+.*)$`),                                         // go test, per package
}

// A testRunner recognizes a runner that reports a failed run in a summary
// with counts. The summary, which counts at least one failure, is what
// makes the signature, so that a passing run's summary ("297 tests, 0
// failures"), a test named after failures or a log line saying FAILED
// never match; the first failed test the runner lists is the message.
type testRunner struct {
	// summary matches the summary of a failed run; its first submatch is
	// the message when no failed test is named.
	summary *prefilter.Regexp
	// first find the first failed test, best first; their first submatch
	// is the message.
	first []*prefilter.Regexp
}

// rspecFirst is the first entry of a "Failures:" list as ExUnit and RSpec
// number it: "  1) test adds (CalcTest)".
var rspecFirst = prefilter.MustCompile(`(?m)^  1\) (\S.*)$`)

// testRunners are the runners recognized by their summaries.
var testRunners = []testRunner{
	{ // ExUnit (mix test): "297 tests, 11 failures", "1 doctest, 3 tests, 1 failure, 2 excluded"
		summary: prefilter.MustCompile(`(?m)^((?:\d+ (?:doctests?|propert(?:y|ies)|features?), )*\d+ tests?, (?:[1-9]\d* failures?|0 failures, [1-9]\d* invalid)\b.*)$`),
		first:   []*prefilter.Regexp{rspecFirst},
	},
	{ // RSpec: "12 examples, 2 failures", then "rspec ./spec/x_spec.rb:12 # …"
		summary: prefilter.MustCompile(`(?m)^(\d+ examples?, (?:[1-9]\d* failures?|\d+ failures?, [1-9]\d* errors? occurred outside of examples)\b.*)$`),
		first: []*prefilter.Regexp{
			prefilter.MustCompile(`(?m)^(rspec \S+ # .*)$`),
			prefilter.MustCompile(`(?m)^(An error occurred while loading \S+)$`),
			rspecFirst,
		},
	},
	{ // minitest: "5 runs, 9 assertions, 1 failures, 0 errors, 0 skips"
		summary: prefilter.MustCompile(`(?m)^(\d+ runs, \d+ assertions, (?:[1-9]\d* failures, \d+ errors|\d+ failures, [1-9]\d* errors), \d+ skips)$`),
		first:   []*prefilter.Regexp{prefilter.MustCompile(`(?m)^  1\) (?:Failure|Error):\n(\S.*?):?$`)},
	},
	{ // PHPUnit: "FAILURES!" and "Tests: 10, Assertions: 20, Failures: 1."
		summary: prefilter.MustCompile(`(?m)^(?:FAILURES|ERRORS)!\n(Tests: \d+, Assertions: \d+, .*)$`),
		first:   []*prefilter.Regexp{prefilter.MustCompile(`(?m)^There (?:was|were) \d+ (?:failures?|errors?):\n\n1\) (\S.*)$`)},
	},
	{ // Python's unittest, and Django's test runner: "Ran 6 tests in 0.4s", then "FAILED (failures=1)"
		summary: prefilter.MustCompile(`(?m)^Ran \d+ tests? in [\d.]+s\s*\n\s*\n(FAILED \((?:failures|errors|unexpected successes)=[1-9].*\))$`),
		first:   []*prefilter.Regexp{prefilter.MustCompile(`(?m)^((?:FAIL|ERROR): \S+ \(.*\))\s*$`)},
	},
	{ // dotnet test: "Failed!  - Failed: 1, Passed: 9, …", .NET 9's "Test summary: …"
		summary: prefilter.MustCompile(`(?m)^\s*(Failed!\s+- Failed:\s+[1-9]\d*, .*|Test summary: total: \d+, failed: [1-9]\d*, .*|Test Run Failed\.)$`),
		first:   []*prefilter.Regexp{prefilter.MustCompile(`(?m)^\s+(Failed \S.*?) \[[^\]]*\]$`)},
	},
	{ // Gradle: "2 tests completed, 1 failed" after "AppTest > adds() FAILED"
		summary: prefilter.MustCompile(`(?m)^(\d+ tests? completed, [1-9]\d* failed\b.*)$`),
		first:   []*prefilter.Regexp{prefilter.MustCompile(`(?m)^(\S.* > .* FAILED)$`)},
	},
	{ // Maven's surefire: "Tests run: 5, Failures: 1, Errors: 0, …"
		summary: prefilter.MustCompile(`(?m)^(?:\[ERROR\] )?(Tests run: \d+, (?:Failures: [1-9]\d*, Errors: \d+|Failures: \d+, Errors: [1-9]\d*)\b.*)$`),
		first: []*prefilter.Regexp{
			prefilter.MustCompile(`(?m)^\[ERROR\] (?:Failures|Errors): ?\n\[ERROR\]\s+(\S.*)$`),
			prefilter.MustCompile(`(?m)^(?:Failed tests|Tests in error): ?\n\s+(\S.*)$`),
		},
	},
	{ // XCTest (swift test): "Executed 5 tests, with 1 failure (0 unexpected) …", "Test Suite 'All tests' failed at …"
		summary: prefilter.MustCompile(`(?m)^\s*(Executed \d+ tests?, with [1-9]\d* failures? .*|Test Suite '[^'\n]+' failed at .*)$`),
		first:   []*prefilter.Regexp{prefilter.MustCompile(`(?m)^(Test Case '.+' failed) \(`)},
	},
	{ // Swift Testing (swift test): "✘ Test run with 2 tests failed after …"
		summary: prefilter.MustCompile(`(?m)^\S*\s*(Test run with \d+ tests?(?: in \d+ suites?)? failed after .*)$`),
		first:   []*prefilter.Regexp{prefilter.MustCompile(`(?m)^\S*\s*(Test .+ recorded an issue at .*)$`)},
	},
	{ // ctest: "50% tests passed, 1 tests failed out of 2"
		summary: prefilter.MustCompile(`(?m)^(\d+% tests passed, [1-9]\d* tests? failed out of \d+)$`),
		first:   []*prefilter.Regexp{prefilter.MustCompile(`(?m)^The following tests FAILED:\n\s+(\d+ - .+)$`)},
	},
	{ // Playwright: "  1 failed" and the failed tests under it
		summary: prefilter.MustCompile(`(?m)^  [1-9]\d* failed\n    (\S.*:\d+:\d+ › .*)$`),
	},
}

var (
	// goBuildFailedRE matches go test's line for a package whose test
	// binary could not be built.
	goBuildFailedRE = prefilter.MustCompile(`(?m)^(FAIL\s+\S+ \[(?:build|setup) failed\])$`)
	// goCompileErrorRE matches a Go compiler's or go command's error.
	goCompileErrorRE = prefilter.MustCompile(`(?m)^(\S+\.go:\d+(?::\d+)?: .*)$`)
)

// matchTests recognizes a test runner reporting failed tests. A go test
// run whose package did not build is a build error, the compiler's first
// error its message.
func matchTests(out string, _ *shell.Command, _ bool) *Diagnosis {
	if m := goBuildFailedRE.FindStringSubmatch(out); m != nil {
		msg := m[1]
		if e := goCompileErrorRE.FindStringSubmatch(out); e != nil {
			msg = e[1]
		}
		return &Diagnosis{Category: BuildError, Message: termtext.Cut(strings.TrimSpace(msg), 200)}
	}
	for _, re := range testFailures {
		if m := re.FindStringSubmatch(out); m != nil {
			return &Diagnosis{Category: TestFailure, Message: termtext.Cut(strings.TrimSpace(m[1]), 200)}
		}
	}
	for _, r := range testRunners {
		m := r.summary.FindStringSubmatch(out)
		if m == nil {
			continue
		}
		msg := m[1]
		for _, re := range r.first {
			if f := re.FindStringSubmatch(out); f != nil {
				msg = f[1]
				break
			}
		}
		// Playwright rules its test headers off with "───".
		msg = strings.TrimRight(msg, " ─")
		return &Diagnosis{Category: TestFailure, Message: termtext.Cut(strings.TrimSpace(msg), 200)}
	}
	return nil
}
