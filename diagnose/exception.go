package diagnose

import (
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/retrace-dev/retrace/internal/prefilter"
	"github.com/retrace-dev/retrace/internal/termtext"
	"github.com/retrace-dev/retrace/shell"
)

var (
	tracebackRE = prefilter.MustCompile(`(?m)Traceback \(most recent call last\):\s*$`)
	frameRE     = prefilter.MustCompile(`^\s+File "([^"]+)", line (\d+)(?:, in (\S+))?`)
	excLineRE   = prefilter.MustCompile(`^([A-Za-z_][\w.]*)(?::\s?(.*))?$`)
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
var exhaustedRE = prefilter.MustCompile(`(?i)out of memory|No space left on device|Cannot allocate memory|Disk quota exceeded`)

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
// with the innermost frame in the project; or the syntax error Python
// reports before running anything, or an interpreter that did not find
// the module it was to run. When the call claims success, the exception
// must end the output, unless the command runs Python itself: a traceback
// another program logged and survived is not its failure, but a script
// that printed its own traceback, or that of a program it ran, then went
// on to exit 0 did not do its job.
func matchTraceback(out string, cmd *shell.Command, claimsSuccess bool) *Diagnosis {
	locs := tracebackRE.FindAllStringIndex(out, -1)
	if locs == nil {
		if d := matchIPythonTraceback(out, claimsSuccess); d != nil {
			return d
		}
		if d := matchConftestImport(out); d != nil {
			return d
		}
		if d := matchSyntaxError(out); d != nil {
			return d
		}
		return matchNoModule(out)
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
		if j := strayRun(lines, i); j > i {
			i = j - 1
			continue // lines of standard output flushed into the frames
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
	if claimsSuccess && countNonBlank(lines[i+1:]) > 3 && !(cmd != nil && cmd.RunsPython() && notSurvived(cmd, frames, lines[i+1:])) {
		return nil
	}
	return exceptionDiagnosis(m[1], m[2], frames)
}

var (
	ipythonHeaderRE = prefilter.MustCompile(`(?m)^([A-Za-z_][\w.]*)[ \t]+Traceback \(most recent call last\)[ \t]*$`)
	ipythonFrameRE  = regexp.MustCompile(`^(?:(Cell In\[\d+\]), line (\d+)|File (\S+?):(\d+)(?:, in ([\w.<>]+))?)`)
)

// matchIPythonTraceback reads a traceback as IPython and Jupyter print an
// uncaught exception: a header naming the exception beside "Traceback
// (most recent call last)", frames as "Cell In[3], line 4" or "File
// /app/x.py:12, in load()", and the exception's own line.
func matchIPythonTraceback(out string, claimsSuccess bool) *Diagnosis {
	locs := ipythonHeaderRE.FindAllStringSubmatchIndex(out, -1)
	if locs == nil {
		return nil
	}
	m := locs[len(locs)-1]
	typ := out[m[2]:m[3]]
	lines := strings.Split(out[m[1]:], "\n")
	var frames []ExceptionInfo
	for i, l := range lines {
		l = strings.TrimRight(l, "\r")
		if f := ipythonFrameRE.FindStringSubmatch(l); f != nil {
			file, line, fn := f[1], f[2], ""
			if file == "" {
				file, line, fn = f[3], f[4], f[5]
			}
			n, _ := strconv.Atoi(line)
			frames = append(frames, ExceptionInfo{File: file, Line: n, Func: fn})
			continue
		}
		if msg, ok := strings.CutPrefix(l, typ); ok && (msg == "" || msg[0] == ':') {
			if claimsSuccess && countNonBlank(lines[i+1:]) > 3 {
				return nil // printed by the program, which went on
			}
			return exceptionDiagnosis(typ, strings.TrimPrefix(msg, ":"), frames)
		}
	}
	return nil
}

var (
	conftestRE      = prefilter.MustCompile(`(?m)^ImportError while loading conftest '[^']+'\.\s*$`)
	pytestFrameRE   = regexp.MustCompile(`^(\S+):(\d+): in (\S+)`)
	pytestExcLineRE = regexp.MustCompile(`^E\s+([A-Za-z_][\w.]*)(?::\s?(.*))?$`)
)

// matchConftestImport reads the exception with which pytest could not
// import a conftest.py, which it prints in its short form and without a
// summary: "ImportError while loading conftest '/app/tests/conftest.py'.",
// frames as "tests/conftest.py:12: in <module>", then "E   ModuleNotFoundError:
// No module named 'app'".
func matchConftestImport(out string) *Diagnosis {
	loc := conftestRE.FindStringIndex(out)
	if loc == nil {
		return nil
	}
	var frames []ExceptionInfo
	for l := range strings.Lines(out[loc[1]:]) {
		l = strings.TrimRight(l, "\r\n")
		if f := pytestFrameRE.FindStringSubmatch(l); f != nil {
			n, _ := strconv.Atoi(f[2])
			frames = append(frames, ExceptionInfo{File: f[1], Line: n, Func: f[3]})
			continue
		}
		if m := pytestExcLineRE.FindStringSubmatch(l); m != nil {
			return exceptionDiagnosis(m[1], m[2], frames)
		}
	}
	return nil
}

// exceptionDiagnosis describes an exception of type typ raised with msg,
// placed at its innermost frame of the project.
func exceptionDiagnosis(typ, msg string, frames []ExceptionInfo) *Diagnosis {
	exc := &ExceptionInfo{Type: typ, Message: termtext.Cut(strings.TrimSpace(msg), 200)}
	if f, ok := projectFrame(frames); ok {
		exc.File, exc.Line, exc.Func = f.File, f.Line, f.Func
		if last := frames[len(frames)-1]; last.File != f.File || last.Line != f.Line {
			exc.Innermost = last.File + ":" + strconv.Itoa(last.Line)
		}
	}
	short := exc.Type[strings.LastIndexByte(exc.Type, '.')+1:]
	cat := exceptionCategory(exc.Type, exc.Message)
	line := exc.Type
	if exc.Message != "" {
		line += ": " + exc.Message
	}
	d := &Diagnosis{Category: cat, Message: termtext.Cut(line, 200), Exception: exc}
	if mm := noModuleRE.FindStringSubmatch(exc.Message); mm != nil && (short == "ModuleNotFoundError" || short == "ImportError") {
		d.Module = mm[1]
	}
	return d
}

// strayRun returns the end of the lines from i on that are another
// stream's, flushed into a traceback's frames, or i when they are not: a
// run of lines that are neither frames nor indented, after which a frame
// follows, or which part a frame from its source line and holds no line
// that reads as the exception (a frame without source may end the frames).
func strayRun(lines []string, i int) int {
	if i == 0 {
		return i
	}
	j, exc := i, false
	for ; j < len(lines); j++ {
		l := strings.TrimRight(lines[j], "\r")
		if l == "" || l[0] == ' ' || l[0] == '\t' || frameRE.MatchString(l) {
			break
		}
		exc = exc || excLineRE.MatchString(strings.TrimSpace(l))
	}
	if j == len(lines) {
		return i
	}
	next := strings.TrimRight(lines[j], "\r")
	indented := next != "" && (next[0] == ' ' || next[0] == '\t')
	if frameRE.MatchString(next) || indented && frameRE.MatchString(lines[i-1]) && !exc {
		return j
	}
	return i
}

var noModuleRE = prefilter.MustCompile(`No module named '([^']+)'`)

// notSurvived reports whether a Python command that printed a traceback
// and went on did not recover from it: it said so at its end (its last
// line reports a failure), or the traceback is not the script's own
// but that of a program it ran (none of its frames is in the script).
func notSurvived(cmd *shell.Command, frames []ExceptionInfo, after []string) bool {
	for i := len(after) - 1; i >= 0; i-- {
		if strings.TrimSpace(after[i]) != "" {
			if failureWordRE.MatchString(after[i]) {
				return true
			}
			break
		}
	}
	own := cmd.Target
	if own == "python -c" {
		own = "<string>"
	}
	for _, f := range frames {
		if path.Base(f.File) == own {
			return false
		}
	}
	return len(frames) > 0
}

// syntaxErrorRE finds the error Python reports for a file it could not
// compile, with no traceback: the file and line, the code, a caret, and
// the error.
var syntaxErrorRE = prefilter.MustCompile(`(?m)^\s*File "([^"]+)", line (\d+)\r?\n(?:[^\n]*\n){0,4}?((?:SyntaxError|IndentationError|TabError): .*)$`)

// matchSyntaxError recognizes a file Python could not compile.
func matchSyntaxError(out string) *Diagnosis {
	m := syntaxErrorRE.FindStringSubmatch(out)
	if m == nil {
		return nil
	}
	typ, msg, _ := strings.Cut(m[3], ": ")
	n, _ := strconv.Atoi(m[2])
	exc := &ExceptionInfo{Type: typ, Message: termtext.Cut(strings.TrimSpace(msg), 200), File: m[1], Line: n}
	return &Diagnosis{Category: Exception, Message: termtext.Cut(strings.TrimSpace(m[3]), 200), Exception: exc}
}

// noModuleToRunRE finds an interpreter that did not find the module -m
// named, or the package of it: "python: No module named pytest",
// "python: Error while finding module specification for 'x.cli'
// (ModuleNotFoundError: No module named 'x')".
var noModuleToRunRE = prefilter.MustCompile(`(?m)^(?:\S*/)?(?:python|pypy)[\d.]*(?:\.exe)?: (?:Error while finding module specification for '[^']+' \((?:ModuleNotFoundError: )?)?No module named '?([\w.]+)'?\)?\s*$`)

// matchNoModule recognizes an interpreter that did not find the module it
// was to run.
func matchNoModule(out string) *Diagnosis {
	m := noModuleToRunRE.FindStringSubmatch(out)
	if m == nil {
		return nil
	}
	exc := &ExceptionInfo{Type: "ModuleNotFoundError", Message: "No module named '" + m[1] + "'"}
	return &Diagnosis{Category: Exception, Message: termtext.Cut(strings.TrimSpace(m[0]), 200), Exception: exc, Module: m[1]}
}

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
