// Package cputime reads the CPU time the process has used, for benchmarks
// that must be compared on a machine other programs load: wall time counts
// the waits for a CPU, CPU time does not.
package cputime

import "time"

// Used returns the user and system CPU time the process has used so far,
// all threads together; 0 where the system does not say.
func Used() time.Duration { return used() }
