package redact

import "strings"

// This file holds the rules for secrets known by where they stand rather
// than by their shape: values of secret-named variables, keys and flags,
// and passwords in URLs.

// A nameClass is what a variable, key or flag name says of its value.
type nameClass uint8

const (
	notSecret nameClass = iota
	passwordName
	genericName
	awsSecretName
)

// classify tells what name (a variable, a JSON or YAML key, a flag without
// its dashes or with them) holds, by its end, ignoring case and the
// separators _ - and . : PGPASSWORD, db_password, --passwd, "passphrase",
// DB_PASS, MYSQL_PWD, -storepass are passwords; GITHUB_TOKEN, client_secret,
// x-api-key, SecretAccessKey are secrets. MAX_TOKENS, TOKEN_TYPE,
// secretName and PWD (the working directory) are not.
func classify(name string) nameClass {
	name = strings.TrimLeft(name, "-")
	if name == "" || len(name) > 64 {
		return notSecret
	}
	if !secretEnd(name[len(name)-1]) || !secretEnds(name) {
		return notSecret
	}
	// tail is the end of the name, lower case, without separators.
	var buf [16]byte
	n := len(buf)
	for j := len(name) - 1; j >= 0 && n > 0; j-- {
		c := name[j]
		if c == '_' || c == '-' || c == '.' {
			continue
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		n--
		buf[n] = c
	}
	tail := string(buf[n:])
	switch {
	case strings.HasSuffix(tail, "secretaccesskey"):
		return awsSecretName
	case strings.HasSuffix(tail, "password"), strings.HasSuffix(tail, "passwd"), strings.HasSuffix(tail, "passphrase"),
		strings.HasSuffix(tail, "storepass"), strings.HasSuffix(tail, "keypass"),
		strings.EqualFold(name, "pass"), hasSuffixFold(name, "_pass"), hasSuffixFold(name, "-pass"), hasSuffixFold(name, ".pass"),
		hasSuffixFold(name, "_pwd"), hasSuffixFold(name, "-pwd"):
		return passwordName
	}
	for _, suffix := range genericSuffixes {
		if strings.HasSuffix(tail, suffix) {
			return genericName
		}
	}
	return notSecret
}

// secretEnd reports whether a name that ends with c may be a secret's:
// whether c ends one of the words classify looks for (key, password,
// passwd, pwd, passphrase, pass, token, secret), in either case. Most
// names end otherwise, so this one test turns most of them away.
func secretEnd(c byte) bool {
	switch c | 0x20 {
	case 'y', 'd', 'e', 's', 'n', 't':
		return true
	}
	return false
}

// secretEnds reports whether name, which ends with a letter, may be a
// secret's by its last two letters, ignoring case and separators: whether
// they end one of the words classify looks for (key, password, passwd,
// pwd, passphrase, pass, token, secret). It turns away in a few steps most
// names that secretEnd lets through.
func secretEnds(name string) bool {
	j := len(name) - 2
	for j >= 0 && (name[j] == '_' || name[j] == '-' || name[j] == '.') {
		j--
	}
	if j < 0 {
		return false
	}
	a, b := name[j]|0x20, name[len(name)-1]|0x20
	switch {
	case b == 'y':
		return a == 'e'
	case b == 'd':
		return a == 'r' || a == 'w'
	case b == 'e':
		return a == 's'
	case b == 's':
		return a == 's'
	case b == 'n':
		return a == 'e'
	case b == 't':
		return a == 'e'
	}
	return false
}

// hasSuffixFold is strings.HasSuffix ignoring ASCII case; suffix is lower
// case.
func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && hasPrefixFold(s[len(s)-len(suffix):], suffix)
}

// genericSuffixes end the (normalized) names of variables that hold a
// secret other than a password.
var genericSuffixes = []string{
	"token", "secret", "apikey", "accesskey", "secretkey", "privatekey", "authkey",
}

// maxValue bounds a value's length.
const maxValue = 1024

// assignAt matches the value given to a secret-named variable or key at
// the '=' or ':' at i:
//
//	NAME=value  NAME="value"  name = 'value'  --name=value  ?access_token=value
//	"name": "value"  'name': value  \"name\": \"value\" (JSON inside a string)
//	name: value  (YAML or an HTTP header, with the name first on its line)
func assignAt(s string, i int) (span, bool) {
	sep := s[i]
	if sep == '=' && i+1 < len(s) && s[i+1] == '=' {
		return span{}, false
	}
	j := i
	if sep == '=' && j > 0 && s[j-1] == ':' { // Go's :=
		j--
	}
	for j > 0 && i-j < 4 && isSpace(s[j-1]) {
		j--
	}
	spaced := j < i && isSpace(s[j])
	var quote byte
	escaped := false
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		quote = s[j-1]
		j--
		if j > 0 && s[j-1] == '\\' {
			escaped = true
			j--
		}
	}
	if j == 0 || !secretEnd(s[j-1]) { // most names: the cheap way out
		return span{}, false
	}
	k := j
	for k > 0 && j-k < 64 && is(s[k-1], cIdent) {
		k--
	}
	if quote != 0 {
		open := k >= 1 && s[k-1] == quote
		if escaped {
			open = k >= 2 && s[k-1] == quote && s[k-2] == '\\'
		}
		if !open {
			return span{}, false
		}
	}
	cls := classify(s[k:j])
	if cls == notSecret {
		return span{}, false
	}
	if sep == ':' {
		if quote == 0 && (spaced || !lineStart(s, k) || i+1 >= len(s) || s[i+1] != ' ') {
			return span{}, false
		}
		spaced = true
	}
	p := i + 1
	for p < len(s) && p-i <= 3 && isSpace(s[p]) {
		p++
		spaced = true
	}
	return valueSpan(s, p, cls, spaced)
}

// valueSpan returns the span of the value at p, given to a name of class
// cls. spaced tells that the separator had spaces around it, as in code and
// in YAML; then a bare word is taken for a variable, not a password.
func valueSpan(s string, p int, cls nameClass, spaced bool) (span, bool) {
	vs, ve, quoted, ok := value(s, p)
	if !ok {
		return span{}, false
	}
	v := s[vs:ve]
	if placeholder(v) || !quoted && code(s, ve, v, spaced) {
		return span{}, false
	}
	switch cls {
	case awsSecretName:
		if len(v) == 40 && run(v, 0, cB64, 40) == 40 && !filler(v) {
			return span{vs, ve, kindAWSSecret}, true
		}
		fallthrough
	case genericName:
		if randomish(v) {
			return span{vs, ve, kindGeneric}, true
		}
		return span{}, false
	case passwordName:
		return span{vs, ve, kindPassword}, true
	}
	return span{}, false
}

// value returns the bounds of the value at p: the inside of a quoted
// string ('…', "…", `…`, or \"…\" inside a JSON string), or the bytes up
// to a space, a quote or punctuation that ends a word in code.
func value(s string, p int) (start, end int, quoted, ok bool) {
	if p >= len(s) {
		return 0, 0, false, false
	}
	switch q := s[p]; {
	case q == '"' || q == '\'' || q == '`':
		for e := p + 1; e < len(s) && e-p <= maxValue; e++ {
			switch s[e] {
			case '\n':
				return 0, 0, false, false
			case '\\':
				if q != '\'' {
					e++
				}
			case q:
				return p + 1, e, true, e > p+1
			}
		}
		return 0, 0, false, false
	case q == '\\' && p+1 < len(s) && s[p+1] == '"':
		for e := p + 2; e+1 < len(s) && e-p <= maxValue; e++ {
			switch s[e] {
			case '\n':
				return 0, 0, false, false
			case '\\':
				if s[e+1] == '"' {
					return p + 2, e, true, e > p+2
				}
				e++
			}
		}
		return 0, 0, false, false
	}
	e := p
	for e < len(s) && e-p < maxValue && !is(s[e], cStop) {
		e++
	}
	e = backToRune(s, p, e)
	return p, e, false, e > p
}

// code reports whether the bare value v, ending at end, reads as code
// rather than as a secret: a call or an index (getpass(), env["X"]), an
// attribute (self.password, settings.DB_PASSWORD), or a bare name passed on
// (f(password=password), password = pw, password: secret_from_vault).
func code(s string, end int, v string, spaced bool) bool {
	if end < len(s) && (s[end] == '(' || s[end] == '[') {
		return true
	}
	dotted := false
	for part := range strings.SplitSeq(v, ".") {
		if part == "" || !(isLetter(part[0]) || part[0] == '_') || run(part, 0, cUWord, len(part)) != len(part) {
			return false
		}
		dotted = dotted || len(part) < len(v)
	}
	if dotted {
		return true
	}
	for j := 0; j < len(v); j++ {
		if isDigit(v[j]) {
			return false // hunter2: a bare word with digits is taken for a password
		}
	}
	return spaced || end < len(s) && (s[end] == ',' || s[end] == ')')
}

// lineStart reports whether only blanks, or a YAML list dash, stand
// between the start of its line and k. A line may start after an escaped
// newline, as in a JSON string.
func lineStart(s string, k int) bool {
	for k > 0 && isSpace(s[k-1]) {
		k--
	}
	if k > 0 && s[k-1] == '-' {
		k--
		for k > 0 && isSpace(s[k-1]) {
			k--
		}
	}
	return k == 0 || s[k-1] == '\n' || s[k-1] == '\r' ||
		k >= 2 && s[k-2] == '\\' && (s[k-1] == 'n' || s[k-1] == 'r') // escaped, as in JSON
}

// Commands whose flags take a password, as bits of a commands value.
const (
	cmdMySQL   = 1 << iota // mysql, mysqldump, mysqladmin, mariadb…
	cmdSSHPass             // sshpass
	cmdCurl                // curl
)

// commandWords are the words that stand for each command.
var commandWords = [...]struct {
	word string
	cmd  uint8
}{{"mysql", cmdMySQL}, {"mariadb", cmdMySQL}, {"sshpass", cmdSSHPass}, {"curl", cmdCurl}}

// A cmdMemo tells which commands the shell command being scanned names
// before a point: the text since the last line break (real or escaped),
// ";", "|" or "&&". It remembers what it has read, so that a line is read
// once however many flags it holds, and it has no window whose reach
// masking could change (String must be idempotent).
type cmdMemo struct {
	start int   // where the current command starts
	upto  int   // s[start:upto] has been read
	has   uint8 // the commands named in s[start:upto]
	pSeen bool  // a -p flag was seen in the current command
	some  int8  // whether s names any of the commands: 0 unknown, 1 yes, -1 no
}

// names reports whether the command that holds i names one of cmds before
// i. Calls must come with i increasing.
func (m *cmdMemo) names(s string, i int, cmds uint8) bool {
	if m.some == 0 {
		m.some = -1
		for _, w := range commandWords {
			if strings.Contains(s, w.word) {
				m.some = 1
				break
			}
		}
	}
	if m.some < 0 {
		return false
	}
	// Where the next command starts, after the last separator.
	next := -1
	for j := i - 1; j >= m.upto && next < 0; j-- {
		switch s[j] {
		case '\n', ';', '|':
			next = j + 1
		case '&': // "&&"
			if j > m.upto && s[j-1] == '&' {
				next = j + 1
			}
		case 'n': // an escaped newline
			if j > m.upto && s[j-1] == '\\' {
				next = j + 1
			}
		}
	}
	if next >= 0 {
		m.start, m.upto, m.has, m.pSeen = next, next, 0, false
	}
	from := max(m.start, m.upto-len("mariadb")+1) // a word across upto
	for _, w := range commandWords {
		if m.has&w.cmd == 0 && strings.Contains(s[from:i], w.word) {
			m.has |= w.cmd
		}
	}
	m.upto = i
	return m.has&cmds != 0
}

// flagAt matches the value of a command-line flag at the '-' at i, when
// the value follows a space (the --name=value form is assignAt's):
//
//	--password hunter2  --db-password 'x y'  -storepass x  --token <random>
//	mysql -pSECRET  sshpass -p SECRET  curl -u user:SECRET  openssl -passin pass:SECRET
//
// mysql's -p takes its value only attached: "mysql -p dbname" prompts for
// the password and names a database, so that form is left alone. A -p is a
// password only as the first -p of a command that names mysql, mariadb or
// sshpass (see cmdMemo).
func flagAt(s string, i int, cmd *cmdMemo) (span, bool) {
	if i > 0 && !isSpace(s[i-1]) && strings.IndexByte("\n\r\"'`(=;|&", s[i-1]) < 0 {
		return span{}, false
	}
	j := i + 1
	if s[j] == '-' {
		j++
	}
	k := run(s, j, cAny, 48)
	if k == j {
		return span{}, false
	}
	single := j == i+1
	name := s[j:k]
	p := k
	for p < len(s) && p-k < 4 && isSpace(s[p]) {
		p++
	}
	if single && s[j] == 'p' && cmd.names(s, i, cmdMySQL|cmdSSHPass) {
		// Only the command's first -p is its password: in "sshpass -p pw
		// ssh -p 2222 host" the second is ssh's port.
		if cmd.pSeen {
			return span{}, false
		}
		cmd.pSeen = true
		switch {
		case j+1 < len(s) && !is(s[j+1], cStop): // -pSECRET
			vs, ve, _, ok := value(s, j+1)
			if ok && !placeholder(s[vs:ve]) {
				return span{vs, ve, kindPassword}, true
			}
		case name == "p" && p > k && p < len(s) && s[p] != '-' && cmd.names(s, i, cmdSSHPass): // sshpass -p SECRET
			return valueSpan(s, p, passwordName, false)
		}
		return span{}, false
	}
	if p == k || p >= len(s) || s[p] == '-' {
		return span{}, false
	}
	switch {
	case single && name == "u" || !single && name == "user":
		vs, ve, _, ok := value(s, p)
		c := strings.IndexByte(s[vs:ve], ':')
		if !ok || c < 0 || !cmd.names(s, i, cmdCurl) || placeholder(s[vs+c+1:ve]) {
			return span{}, false
		}
		return span{vs + c + 1, ve, kindPassword}, true
	case single && (name == "passin" || name == "passout" || name == "pass"):
		// openssl: pass:SECRET; env:VAR, file:PATH, fd:N and stdin name
		// where the password is, not the password.
		vs, ve, _, ok := value(s, p)
		if !ok {
			return span{}, false
		}
		if v := s[vs:ve]; strings.HasPrefix(v, "pass:") {
			if placeholder(v[5:]) {
				return span{}, false
			}
			return span{vs + 5, ve, kindPassword}, true
		}
		if name != "pass" {
			return span{}, false
		}
	}
	cls := classify(name)
	if cls == notSecret {
		return span{}, false
	}
	return valueSpan(s, p, cls, false)
}

// urlAt matches the password in scheme://user:password@host at the "://"
// at i, keeping the user and the host. The authority ends at the first /,
// ?, # or space, and the user information at its last @, as in RFC 3986.
func urlAt(s string, i int) (span, bool) {
	k := i
	for k > 0 && i-k < 32 && (isAlnum(s[k-1]) || s[k-1] == '+' || s[k-1] == '.' || s[k-1] == '-') {
		k--
	}
	if i-k < 2 {
		return span{}, false
	}
	a := i + len("://")
	e := a
	for e < len(s) && e-a < 512 && !(s[e] <= ' ' || strings.IndexByte("/?#\"'`<>\\", s[e]) >= 0) {
		e++
	}
	auth := s[a:e]
	at := strings.LastIndexByte(auth, '@')
	if at < 0 {
		return span{}, false
	}
	// RFC 3986 has '[' percent-encoded in user information: one here starts
	// a mask.
	c := strings.IndexByte(auth[:at], ':')
	if c < 0 || strings.IndexByte(auth[:at], '[') >= 0 || placeholder(auth[c+1:at]) {
		return span{}, false
	}
	return span{a + c + 1, a + at, kindURLPassword}, true
}
