package shell

import (
	"slices"
	"strings"
)

// What a command works on, when its target does not say it: the modules
// the code of `python -c` or of a script fed on standard input imports,
// the packages an installer installs. The pairing compares them, so that
// another snippet or another package is not taken for a retry.

// RunsSnippet reports whether target t is Python run on code the line
// itself holds: `python -c CODE`, or `python - <<'EOF'`.
func RunsSnippet(t string) bool { return t == "python -c" || t == "python -" || t == "python" }

// InlineImports returns the top-level names of the modules that the code
// of `python -c CODE`, or of a script a here-document feeds Python
// (`python - <<'EOF'`), imports ("astropy" for `from astropy.modeling
// import models`), in order, each once; nil when the command runs no such
// code or its code imports nothing. Relative imports are left out.
func (c *Command) InlineImports() []string {
	if !RunsSnippet(c.Target) {
		return nil
	}
	code := c.Input
	if c.Target == "python -c" {
		i := slices.Index(c.Argv, "-c")
		if i < 0 || i+1 >= len(c.Argv) {
			return nil
		}
		code = c.Argv[i+1]
	}
	var mods []string
	add := func(name string) {
		name, _, _ = strings.Cut(name, ".")
		if isIdentifier(name) && !slices.Contains(mods, name) {
			mods = append(mods, name)
		}
	}
	for line := range strings.Lines(code) {
		for stmt := range strings.SplitSeq(line, ";") {
			words := strings.Fields(stmt)
			switch {
			case len(words) >= 3 && words[0] == "from" && strings.HasPrefix(words[2], "import"):
				add(words[1])
			case len(words) >= 2 && words[0] == "import":
				// import a, b.c as d
				for name := range strings.SplitSeq(strings.Join(words[1:], " "), ",") {
					if f := strings.Fields(name); len(f) > 0 {
						add(f[0])
					}
				}
			}
		}
	}
	return mods
}

// isIdentifier reports whether s is a Python name: letters, digits and
// underscores, not starting with a digit.
func isIdentifier(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, r := range s {
		if r != '_' && !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}

// StdlibModule reports whether name is a top-level module of Python's
// standard library.
func StdlibModule(name string) bool { return stdlib[name] }

// stdlib holds the public names of Python 3.11's sys.stdlib_module_names,
// and __future__.
var stdlib = func() map[string]bool {
	m := map[string]bool{"__future__": true}
	for _, name := range strings.Fields(`
		abc aifc antigravity argparse array ast asynchat asyncio asyncore atexit audioop
		base64 bdb binascii bisect builtins bz2 cProfile calendar cgi cgitb chunk cmath cmd
		code codecs codeop collections colorsys compileall concurrent configparser
		contextlib contextvars copy copyreg crypt csv ctypes curses dataclasses datetime
		dbm decimal difflib dis distutils doctest email encodings ensurepip enum errno
		faulthandler fcntl filecmp fileinput fnmatch fractions ftplib functools gc
		genericpath getopt getpass gettext glob graphlib grp gzip hashlib heapq hmac html
		http idlelib imaplib imghdr imp importlib inspect io ipaddress itertools json
		keyword lib2to3 linecache locale logging lzma mailbox mailcap marshal math
		mimetypes mmap modulefinder msilib msvcrt multiprocessing netrc nis nntplib nt
		ntpath nturl2path numbers opcode operator optparse os ossaudiodev pathlib pdb
		pickle pickletools pipes pkgutil platform plistlib poplib posix posixpath pprint
		profile pstats pty pwd py_compile pyclbr pydoc pydoc_data pyexpat queue quopri
		random re readline reprlib resource rlcompleter runpy sched secrets select
		selectors shelve shlex shutil signal site smtpd smtplib sndhdr socket
		socketserver spwd sqlite3 sre_compile sre_constants sre_parse ssl stat
		statistics string stringprep struct subprocess sunau symtable sys sysconfig
		syslog tabnanny tarfile telnetlib tempfile termios textwrap this threading time
		timeit tkinter token tokenize tomllib trace traceback tracemalloc tty turtle
		turtledemo types typing unicodedata unittest urllib uu uuid venv warnings wave
		weakref webbrowser winreg winsound wsgiref xdrlib xml xmlrpc zipapp zipfile
		zipimport zlib zoneinfo`) {
		m[name] = true
	}
	return m
}()

// installers are the targets that install the packages their arguments
// name, with the options of each that take a value naming no package (an
// index, a directory, a constraints file, a workspace): `-f` is pip's
// --find-links, but apt-get's --fix-broken and cargo's --force.
var installers = map[string]string{
	"pip install":     pipValues,
	"pip3 install":    pipValues,
	"uv pip install":  pipValues,
	"uv add":          pipValues + " --group --optional --package",
	"poetry add":      "-G --group -E --extras --source --python",
	"conda install":   "-c --channel -n --name -p --prefix --override-channels",
	"npm install":     npmValues,
	"npm i":           npmValues,
	"npm add":         npmValues,
	"pnpm add":        npmValues,
	"pnpm install":    npmValues,
	"pnpm i":          npmValues,
	"yarn add":        npmValues,
	"bun add":         npmValues,
	"bun install":     npmValues,
	"apt install":     "-t --target-release -o --option -c --config-file",
	"apt-get install": "-t --target-release -o --option -c --config-file",
	"brew install":    "",
	"go get":          "-modfile",
	"go install":      "-modfile -tags -ldflags -gcflags",
	"cargo add":       "-F --features --rename --registry --path --git --branch --tag --rev -p --package --manifest-path",
	"cargo install":   "-F --features --version --registry --index --git --branch --tag --rev --path --root -j --jobs --target --profile",
	"gem install":     "-v --version -i --install-dir -n --bindir -s --source --platform",
}

const (
	pipValues = "-i --index-url --extra-index-url -f --find-links --trusted-host -t --target " +
		"--prefix --root -c --constraint --python -p --cache-dir --timeout --platform " +
		"--python-version --only-binary --no-binary --index --default-index -C --config-settings " +
		"--src --upgrade-strategy --progress-bar --log --proxy --retries --implementation --abi --index-strategy"
	npmValues = "--registry -w --workspace --filter -F --prefix --cache --cwd -C --dir --loglevel --omit --include"
)

// Installs reports whether target installs the packages its arguments
// name (pip install, npm install, apt-get install, go get, cargo add).
func Installs(target string) bool {
	_, ok := installers[target]
	return ok
}

// Packages returns what an installer (pip install, npm install, apt-get
// install, go get, cargo add) installs, each once, in order: a package by
// its name, lower-cased, without its version, extras or platform, with
// '_' and '.' read as '-' (`Django==4.2` and `django` are one); a file or
// path as written (`-e .`, `-r requirements.txt`). Nil for other commands
// and for an installer that names nothing (`npm install`).
func (c *Command) Packages() []string {
	values, ok := installers[c.Target]
	if !ok {
		return nil
	}
	var out []string
	for i := 0; i < len(c.Args); i++ {
		a := c.Args[i]
		if IsFlag(a) {
			if !strings.Contains(a, "=") && slices.Contains(strings.Fields(values), a) {
				i++
			}
			continue
		}
		if strings.Contains(a, "://") {
			continue // an index or a URL given without its option
		}
		if p := packageName(a); p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// packageName returns the name of the package a spells, as Packages
// compares it.
func packageName(a string) string {
	if strings.HasPrefix(a, ".") || strings.HasPrefix(a, "/") || strings.HasPrefix(a, "~") ||
		strings.Contains(a, `\`) || strings.HasSuffix(a, ".txt") {
		path, _, _ := strings.Cut(a, "[")
		return path // a path without its extras (`.[dev]`), a file of requirements
	}
	name := strings.ToLower(a)
	if i := strings.LastIndexByte(name, '@'); i > 0 {
		name = name[:i] // npm's and go's @version; an npm scope starts with @
	}
	if strings.Contains(name, "/") {
		return name // a scoped npm package, a Go module
	}
	if i := strings.IndexAny(name, "=<>!~;[ :"); i >= 0 {
		name = name[:i] // pip's and apt's versions, extras and markers, apt's :arch
	}
	return strings.NewReplacer("_", "-", ".", "-").Replace(name)
}
