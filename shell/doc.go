// Package shell reads the command lines agents run: it parses a line with
// a real shell parser (mvdan.cc/sh, bounded by internal/shparse; PowerShell
// and cmd.exe scripts by hand), peels its wrappers (ssh, sudo, env,
// timeout, bash -c, docker and kubectl exec, `cd dir &&`, redirections,
// trailing filters) and names what remains: a Command, its argv and its
// target, the thing being run ("benchmark_eagle3.py" however the
// interpreter is spelled, "go test", "npm run build").
//
// A Command also says what it does, as the analysis asks it: whether it
// shows data (IsViewer), only looks (Inspects, Looks), changes the environment,
// asks for help, which command's status is the line's (Status), and what
// hides it (Masked, MaskedBy).
package shell
