//go:build race

package analyzer_test

// raceEnabled reports that the tests run under the race detector, which
// makes reading the real corpus too slow: the run without it reads it.
const raceEnabled = true
