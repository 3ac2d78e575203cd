package diagnose

import (
	"strings"

	"github.com/retrace-dev/retrace/internal/prefilter"
)

// Lines that the environment prints beside a command that ran, and that
// say nothing of the command itself. Git Bash on Windows (Cygwin, MSYS2)
// reports each fork it had to retry, from bash and from every program of
// the line, before or after their normal output:
//
//	      0 [main] which (14344) child_copy: cygheap read copy failed, 0x0..0x8000234E0, done 0, windows pid 14344, Win32 error 299
//	      0 [main] bash 1873 dofork: child -1 - forked process 33480 died unexpectedly, retry 0, exit code 0xC0000142, errno 11
//	/etc/profile.d/git-prompt.sh: fork: retry: Resource temporarily unavailable
//
// A fork that failed for good ("fork: Resource temporarily unavailable",
// without "retry") is not noise: the command did not run.
var (
	cygwinNoiseRE = prefilter.MustCompile(`^\s*\d+ \[main\] \S+ (?:\(\d+\) |\d+ )(?:child_copy|dofork|fork):`)
	forkRetryRE   = prefilter.MustCompile(`^\S*: fork: retry: `)
)

// stripNoise removes the lines of noise from out.
func stripNoise(out string) string {
	if !strings.Contains(out, "[main] ") && !strings.Contains(out, "fork: retry: ") {
		return out
	}
	var b strings.Builder
	b.Grow(len(out))
	for l := range strings.Lines(out) {
		if line := strings.TrimRight(l, "\r\n"); cygwinNoiseRE.MatchString(line) || forkRetryRE.MatchString(line) {
			continue
		}
		b.WriteString(l)
	}
	return b.String()
}
