package diagnose

import (
	"strings"

	"github.com/retrace-dev/retrace/internal/prefilter"
	"github.com/retrace-dev/retrace/internal/termtext"
	"github.com/retrace-dev/retrace/shell"
)

// Windows PowerShell prints an uncaught error as a record:
//
//	Get-Content : Cannot find path 'C:\x.txt' because it does not exist.
//	At line:1 char:1
//	+ Get-Content x.txt
//	+ ~~~~~~~~~~~~~~~~~
//	    + CategoryInfo          : ObjectNotFound: (C:\x.txt:String) [Get-Content], ItemNotFoundException
//	    + FullyQualifiedErrorId : PathNotFound,Microsoft.PowerShell.Commands.GetContentCommand
//
// A parse error starts with its "At line:" and gives its message after the
// marked code. The record's error category and exception name the failure.
var (
	psCategoryRE  = prefilter.MustCompile(`(?m)^\s*\+ CategoryInfo\s*: (\w+): [^\]]*?\], (\w+)`) // the line may wrap
	psErrorIDRE   = prefilter.MustCompile(`(?m)^\s*\+ FullyQualifiedErrorId\s*: ([\w.]+)`)
	psAtLineRE    = prefilter.MustCompile(`(?m)^At (?:line:\d+ char:\d+|[^\r\n]*:\d+ char:\d+)\s*$`)
	psParamRE     = prefilter.MustCompile(`parameter name '([^']+)'`)
	psTermRE      = prefilter.MustCompile(`The term '([^']+)' is not recognized as the name of a cmdlet`)
	psExceptionRE = prefilter.MustCompile(`^[A-Z]\w*Exception$`)
)

var (
	psMissingRE = prefilter.MustCompile(`does not exist at path|Cannot find path '`)
	psNetworkRE = prefilter.MustCompile(`^(?:RCODE_|DNS_|WebCmdletWebResponseException|System\.Net\.)`)
)

// psCategories sends PowerShell's error categories and exceptions to ours.
var psCategories = map[string]Category{
	"ParameterBindingException": CLIUsage, "CommandNotFoundException": CommandNotFound,
	"ItemNotFoundException": MissingFile, "UnauthorizedAccessException": Permission,
	"ParserError": ShellSyntax, "PermissionDenied": Permission, "OperationTimeout": Timeout,
}

// matchPowerShell recognizes a Windows PowerShell error record.
func matchPowerShell(out string, _ *shell.Command, _ bool) *Diagnosis {
	cm := psCategoryRE.FindStringSubmatchIndex(out)
	at := psAtLineRE.FindStringIndex(out)
	if cm == nil || at == nil || at[0] > cm[0] {
		return nil
	}
	category, exception := out[cm[2]:cm[3]], out[cm[4]:cm[5]]
	msg := psMessage(out[:at[0]], out[at[1]:cm[0]])
	d := &Diagnosis{Category: Exception, Message: termtext.Cut(msg, 200)}
	if cat, ok := psCategories[exception]; ok {
		d.Category = cat
	} else if cat, ok := psCategories[category]; ok {
		d.Category = cat
	}
	id := ""
	if m := psErrorIDRE.FindStringSubmatch(out[cm[0]:]); m != nil {
		id = m[1]
	}
	switch {
	case id == "NativeCommandError":
		d.Category = NonzeroExit // a program's own error output, which PowerShell wraps
	case strings.Contains(msg, "but the module could not be"):
		d.Category = Exception // the cmdlet exists; its module failed
	case psMissingRE.MatchString(msg):
		d.Category = MissingFile
	case psNetworkRE.MatchString(id) || strings.HasPrefix(msg, "Resolve-DnsName :"):
		d.Category = Connection // a DNS server that refused or did not answer
	}
	switch d.Category {
	case CLIUsage:
		d.Parser = "powershell"
		if m := psParamRE.FindStringSubmatch(msg); m != nil {
			d.BadFlags = []string{"-" + m[1]}
		}
	case CommandNotFound:
		if m := psTermRE.FindStringSubmatch(msg); m != nil {
			d.Program = m[1]
		}
	case Exception:
		if psExceptionRE.MatchString(exception) {
			_, text, _ := strings.Cut(msg, " : ")
			d.Exception = &ExceptionInfo{Type: exception, Message: termtext.Cut(strings.TrimSpace(text), 200)}
		}
	}
	return d
}

// A PowerShell script given to powershell.exe inside double quotes on a
// bash line is expanded by bash first: $_ becomes the last word of bash's
// previous command ("extglob" in Claude Code's shell), $true and other
// variables become nothing. PowerShell then reports what is left, with
// errors that point at the mangled code.
var (
	psDoubleQuotedRE = prefilter.MustCompile(`(?i)(?:powershell|pwsh)(?:\.exe)?\b[^"'|;&]*"[^"]*\$`)
	psVanishedRE     = prefilter.MustCompile(`The term '(?:extglob\.[\w.]*|=|\.[\w.]+)' is not recognized|requires both the -Property and -Value parameters|You must provide a value expression|Missing expression after|Expressions are only allowed as the first element of a pipeline`)
)

// matchPowerShellSyntax recognizes a PowerShell script that did not run as
// written: a parse error, or the errors of variables bash expanded before
// PowerShell saw them. Such errors are the line's quoting, whatever its
// exit status.
func matchPowerShellSyntax(out string, cmd *shell.Command, _ bool) *Diagnosis {
	at := psAtLineRE.FindStringIndex(out)
	if at == nil {
		return nil
	}
	cm := psCategoryRE.FindStringSubmatchIndex(out)
	if cm == nil {
		return nil
	}
	if strings.Contains(out, "The term 'extglob.") ||
		cmd != nil && psDoubleQuotedRE.MatchString(cmd.Line) && psVanishedRE.MatchString(out) {
		return &Diagnosis{Category: ShellSyntax, Message: termtext.Cut(psMessage(out[:at[0]], out[at[1]:cm[0]])+" (bash expanded the $ of a PowerShell script in double quotes)", 200)}
	}
	if out[cm[2]:cm[3]] == "ParserError" && at[0] < cm[0] {
		return &Diagnosis{Category: ShellSyntax, Message: termtext.Cut(psMessage(out[:at[0]], out[at[1]:cm[0]]), 200)}
	}
	return nil
}

// psMessage returns the message of an error record: the "Cmdlet : message"
// line in the block just before its "At line:", or, for a parse error,
// which starts with its "At line:", the first line after the marked code.
func psMessage(before, after string) string {
	lines := strings.Split(strings.TrimRight(before, "\r\n"), "\n")
	for i := len(lines) - 1; i >= 0 && strings.TrimSpace(lines[i]) != ""; i-- {
		if strings.Contains(lines[i], " : ") {
			return strings.TrimSpace(lines[i])
		}
	}
	for l := range strings.Lines(after) {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "+") && !psAtLineRE.MatchString(l) {
			return l
		}
	}
	return "PowerShell error"
}
