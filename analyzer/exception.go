package analyzer

import (
	"strconv"
	"strings"
)

var (
	tracebackRE = mustPre(`(?m)Traceback \(most recent call last\):\s*$`)
	frameRE     = mustPre(`^\s+File "([^"]+)", line (\d+)(?:, in (\S+))?`)
	excLineRE   = mustPre(`^([A-Za-z_][\w.]*)(?::\s?(.*))?$`)
)

// exceptionCategories sends exceptions that say what went wrong to the
// category that says it best; others stay exceptions.
var exceptionCategories = map[string]Category{
	"FileNotFoundError": MissingFile, "IsADirectoryError": MissingFile, "NotADirectoryError": MissingFile,
	"PermissionError": Permission,
	"ConnectionError": Connection, "ConnectionRefusedError": Connection, "ConnectionResetError": Connection,
	"ConnectionAbortedError": Connection, "ConnectError": Connection, "MaxRetryError": Connection,
	"NewConnectionError": Connection, "ClientConnectorError": Connection,
	"TimeoutError": Timeout, "ReadTimeout": Timeout, "ConnectTimeout": Timeout, "TimeoutExpired": Timeout,
	"MemoryError": OutOfMemory, "OutOfMemoryError": OutOfMemory,
}

// errorCodes send the error codes an exception's message may carry to the
// category they name.
var errorCodes = []struct {
	code string
	cat  Category
}{
	{"ECONNREFUSED", Connection}, {"ECONNRESET", Connection}, {"ENOTFOUND", Connection},
	{"ETIMEDOUT", Timeout}, {"EACCES", Permission}, {"EPERM", Permission},
	{"ENOENT", MissingFile}, {"ENOSPC", OutOfMemory},
}

// exhaustedRE finds exceptions that say memory or disk space ran out,
// whatever their type: torch's RuntimeError "CUDA out of memory", OSError
// "[Errno 28] No space left on device".
var exhaustedRE = mustPre(`(?i)out of memory|No space left on device|Cannot allocate memory|Disk quota exceeded`)

// exceptionCategory returns the category of an exception of type typ with
// message msg: the one its type or message names, or Exception.
func exceptionCategory(typ, msg string) Category {
	if cat, ok := exceptionCategories[typ[strings.LastIndexByte(typ, '.')+1:]]; ok {
		return cat
	}
	for _, c := range errorCodes {
		if strings.Contains(typ, c.code) || strings.Contains(msg, c.code) {
			return c.cat
		}
	}
	if exhaustedRE.MatchString(msg) {
		return OutOfMemory
	}
	return Exception
}

// matchTraceback recognizes a Python traceback and returns its exception,
// with the innermost frame in the project. When the call claims success,
// the exception must end the output: a traceback a program logged and
// survived is not its failure.
func matchTraceback(out string, _ *Command, claimsSuccess bool) *Diagnosis {
	locs := tracebackRE.FindAllStringIndex(out, -1)
	if locs == nil {
		return nil
	}
	lines := strings.Split(out[locs[len(locs)-1][1]:], "\n")
	var frames []ExceptionInfo
	i := 0
	for ; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], "\r")
		if m := frameRE.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[2])
			frames = append(frames, ExceptionInfo{File: m[1], Line: n, Func: m[3]})
			continue
		}
		if l == "" || l[0] == ' ' || l[0] == '\t' {
			continue // source lines and ^^^^ markers
		}
		break
	}
	if i >= len(lines) {
		return nil
	}
	m := excLineRE.FindStringSubmatch(strings.TrimSpace(lines[i]))
	if m == nil {
		return nil
	}
	if claimsSuccess && countNonBlank(lines[i+1:]) > 3 {
		return nil
	}
	exc := &ExceptionInfo{Type: m[1], Message: cut(strings.TrimSpace(m[2]), 200)}
	if f, ok := projectFrame(frames); ok {
		exc.File, exc.Line, exc.Func = f.File, f.Line, f.Func
		if last := frames[len(frames)-1]; last.File != f.File || last.Line != f.Line {
			exc.Innermost = last.File + ":" + strconv.Itoa(last.Line)
		}
	}
	short := exc.Type[strings.LastIndexByte(exc.Type, '.')+1:]
	cat := exceptionCategory(exc.Type, exc.Message)
	msg := exc.Type
	if exc.Message != "" {
		msg += ": " + exc.Message
	}
	d := &Diagnosis{Category: cat, Message: cut(msg, 200), Exception: exc}
	if mm := noModuleRE.FindStringSubmatch(exc.Message); mm != nil && (short == "ModuleNotFoundError" || short == "ImportError") {
		d.Module = mm[1]
	}
	return d
}

var noModuleRE = mustPre(`No module named '([^']+)'`)

// projectFrame returns the innermost frame outside installed packages and
// the standard library, or the innermost frame when all are.
func projectFrame(frames []ExceptionInfo) (ExceptionInfo, bool) {
	for i := len(frames) - 1; i >= 0; i-- {
		f := frames[i].File
		if !strings.Contains(f, "site-packages") && !strings.Contains(f, "dist-packages") &&
			!strings.HasPrefix(f, "<frozen") && !strings.Contains(f, "/lib/python") {
			return frames[i], true
		}
	}
	if len(frames) > 0 {
		return frames[len(frames)-1], true
	}
	return ExceptionInfo{}, false
}

func countNonBlank(lines []string) int {
	n := 0
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}
