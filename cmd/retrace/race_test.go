//go:build race

package main

// raceEnabled reports that the tests run under the race detector, which
// makes the long replays of the real corpus too slow to run.
const raceEnabled = true
