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
	azureKeyName  // an Azure storage or Service Bus key
	signatureName // the signature of a signed URL
	authName      // "auth": HTTP basic credentials, as in Docker's config.json
)

// classify tells what name (a variable, a JSON or YAML key, a flag without
// its dashes or with them) holds, by its end, ignoring case and the
// separators _ - and . : PGPASSWORD, db_password, --passwd, "passphrase",
// DB_PASS, MYSQL_PWD, -storepass, REDISCLI_AUTH are passwords;
// GITHUB_TOKEN, client_secret, x-api-key, SecretAccessKey, private_key_id
// are secrets; AccountKey, sig, X-Amz-Signature and auth have kinds of
// their own. MAX_TOKENS, TOKEN_TYPE, secretName and PWD (the working
// directory) are not.
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
	case strings.HasSuffix(tail, "accountkey"), strings.HasSuffix(tail, "sharedaccesskey"), strings.HasSuffix(tail, "storagekey"):
		return azureKeyName
	case strings.HasSuffix(tail, "password"), strings.HasSuffix(tail, "passwd"), strings.HasSuffix(tail, "passphrase"),
		strings.HasSuffix(tail, "storepass"), strings.HasSuffix(tail, "keypass"), strings.HasSuffix(tail, "rediscliauth"),
		strings.EqualFold(name, "pass"), hasSuffixFold(name, "_pass"), hasSuffixFold(name, "-pass"), hasSuffixFold(name, ".pass"),
		hasSuffixFold(name, "_pwd"), hasSuffixFold(name, "-pwd"):
		return passwordName
	case strings.EqualFold(name, "sig"), strings.HasSuffix(tail, "signature"):
		return signatureName
	case strings.EqualFold(name, "auth"), hasSuffixFold(name, "_auth"), hasSuffixFold(name, "-auth"), hasSuffixFold(name, ".auth"):
		return authName
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
// passwd, pwd, passphrase, pass, token, secret, id, signature, sig, auth),
// in either case. Most names end otherwise, so this one test turns most of
// them away.
func secretEnd(c byte) bool {
	switch c | 0x20 {
	case 'y', 'd', 'e', 's', 'n', 't', 'g', 'h':
		return true
	}
	return false
}

// secretEnds reports whether name, which ends with a letter, may be a
// secret's by its last two letters, ignoring case and separators: whether
// they end one of the words classify looks for (key, password, passwd,
// pwd, passphrase, pass, token, secret, id, signature, sig, auth). It turns
// away in a few steps most names that secretEnd lets through.
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
		return a == 'r' || a == 'w' || a == 'i'
	case b == 'e':
		return a == 's' || a == 'r'
	case b == 's':
		return a == 's'
	case b == 'n':
		return a == 'e'
	case b == 't':
		return a == 'e'
	case b == 'g':
		return a == 'i'
	case b == 'h':
		return a == 't'
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
	"token", "secret", "apikey", "accesskey", "secretkey", "privatekey", "authkey", "privatekeyid",
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
	if cls == notSecret || cls == signatureName && j-k == 3 && !(k > 0 && (s[k-1] == '?' || s[k-1] == '&')) {
		return span{}, false // sig= is a signature in a URL's query only
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
// in YAML; then a bare word is taken for a variable, not a password. A
// value that runs into a cut is masked whatever it holds, but for a
// placeholder.
func valueSpan(s string, p int, cls nameClass, spaced bool) (span, bool) {
	vs, ve, quoted, ok := value(s, p)
	if !ok {
		return span{}, false
	}
	ve, cut := cutValue(s, vs, ve)
	v := s[vs:ve]
	if v == "" || placeholder(v) || !quoted && code(s, ve, v, spaced) {
		return span{}, false
	}
	if cut {
		return span{vs, ve, cutKinds[cls]}, true
	}
	switch cls {
	case awsSecretName:
		if len(v) == 40 && run(v, 0, cB64, 40) == 40 && !filler(v) {
			return span{vs, ve, kindAWSSecret}, true
		}
	case azureKeyName:
		if len(v) >= 40 && run(v, 0, cB64, len(v)) == len(v) && !filler(v) {
			return span{vs, ve, kindAzureKey}, true
		}
	case signatureName:
		// Base64, base64url or hex, URL-encoded or not.
		if m, distinct := classes(v); len(v) >= 16 && count(m) >= 2 && distinct >= 8 &&
			run(strings.ReplaceAll(v, "%", ""), 0, cB64|cB64URL, len(v)) == len(v)-strings.Count(v, "%") {
			return span{vs, ve, kindSignature}, true
		}
		return span{}, false
	case authName:
		if userPassword(v) {
			return span{vs, ve, kindBasicAuth}, true
		}
	case passwordName:
		return span{vs, ve, kindPassword}, true
	}
	if randomish(v) {
		return span{vs, ve, kindGeneric}, true
	}
	return span{}, false
}

// cutKinds names what a value cut short is found as, by the class of its
// name.
var cutKinds = [...]kind{
	passwordName:  kindPassword,
	genericName:   kindGeneric,
	awsSecretName: kindAWSSecret,
	azureKeyName:  kindAzureKey,
	signatureName: kindSignature,
	authName:      kindBasicAuth,
}

// value returns the bounds of the value at p: the inside of a quoted
// string ('…', "…", `…`, or \"…\" inside a JSON string), or the bytes up
// to a space, a quote or punctuation that ends a word in code. A quoted
// string that runs into a cut before its closing quote ends there.
func value(s string, p int) (start, end int, quoted, ok bool) {
	if p >= len(s) {
		return 0, 0, false, false
	}
	cut := -1 // where the string runs into a cut, if it does
	unclosed := func(from int) (int, int, bool, bool) {
		if cut > from {
			return from, cut, true, true
		}
		return 0, 0, false, false
	}
	switch q := s[p]; {
	case q == '"' || q == '\'' || q == '`':
		for e := p + 1; e < len(s) && e-p <= maxValue; e++ {
			switch s[e] {
			case '\n':
				if cut < 0 && cutAt(s, e) {
					cut = e
				}
				return unclosed(p + 1)
			case ellipsis[0]:
				if cut < 0 && cutAt(s, e) {
					cut = e
				}
			case '\\':
				if q != '\'' {
					e++
				}
			case q:
				return p + 1, e, true, e > p+1
			}
		}
		return unclosed(p + 1)
	case q == '\\' && p+1 < len(s) && s[p+1] == '"':
		for e := p + 2; e+1 < len(s) && e-p <= maxValue; e++ {
			switch s[e] {
			case '\n':
				if cut < 0 && cutAt(s, e) {
					cut = e
				}
				return unclosed(p + 2)
			case ellipsis[0]:
				if cut < 0 && cutAt(s, e) {
					cut = e
				}
			case '\\':
				if s[e+1] == '"' {
					return p + 2, e, true, e > p+2
				}
				e++
			}
		}
		return unclosed(p + 2)
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
	cmdLogin               // docker login, podman login, helm registry login…
	cmdMongo               // mongo, mongosh, mongodump…
	cmdRedis               // redis-cli
	cmdLDAP                // ldapsearch, ldapmodify…
)

// commandWords are the words that stand for each command.
var commandWords = [...]struct {
	word string
	cmd  uint8
}{
	{"mysql", cmdMySQL}, {"mariadb", cmdMySQL}, {"sshpass", cmdSSHPass}, {"curl", cmdCurl}, {"login", cmdLogin},
	{"mongo", cmdMongo}, {"redis-cli", cmdRedis}, {"ldap", cmdLDAP},
}

// longestWord is the length of the longest of commandWords.
const longestWord = len("redis-cli")

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
	from := max(m.start, m.upto-longestWord+1) // a word across upto
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
//	mysql -pSECRET  sshpass -p SECRET  curl -u user:SECRET  curl -sSu user:SECRET
//	curl --user=user:SECRET  openssl -passin pass:SECRET  docker login -p SECRET
//	mongosh -p SECRET  redis-cli -a SECRET  ldapsearch -w SECRET
//
// mysql's -p takes its value only attached: "mysql -p dbname" prompts for
// the password and names a database, so that form is left alone. A -p is a
// password only as the first -p of a command that names mysql, mariadb or
// sshpass (see cmdMemo), or as the -p of a command that logs in or names
// mongo, and then not when it is a number (a port).
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
		case j+1 < len(s) && (!is(s[j+1], cStop) || s[j+1] == '"' || s[j+1] == '\''): // -pSECRET, -p'SECRET'
			vs, ve, _, ok := value(s, j+1)
			if ok {
				return secretPart(s, vs, ve, kindPassword)
			}
		case name == "p" && p > k && p < len(s) && s[p] != '-' && cmd.names(s, i, cmdSSHPass): // sshpass -p SECRET
			return valueSpan(s, p, passwordName, false)
		}
		return span{}, false
	}
	if !single && (name == "user" || name == "proxy-user") && k < len(s) && s[k] == '=' {
		p = k + 1 // curl --user=name:password
	}
	if p == k || p >= len(s) || s[p] == '-' {
		return span{}, false
	}
	switch {
	case (single && name[len(name)-1]|0x20 == 'u' && run(name, 0, cLower|cUpper, len(name)) == len(name) ||
		!single && (name == "user" || name == "proxy-user")) && cmd.names(s, i, cmdCurl):
		// curl -u, -su, -sSfu…, --user and the proxy's -U: name:password.
		vs, ve, _, ok := value(s, p)
		c := strings.IndexByte(s[vs:ve], ':')
		if !ok || c < 0 {
			return span{}, false
		}
		return secretPart(s, vs+c+1, ve, kindPassword)
	case single && (name == "passin" || name == "passout" || name == "pass"):
		// openssl: pass:SECRET; env:VAR, file:PATH, fd:N and stdin name
		// where the password is, not the password.
		vs, ve, _, ok := value(s, p)
		if !ok {
			return span{}, false
		}
		if v := s[vs:ve]; strings.HasPrefix(v, "pass:") {
			return secretPart(s, vs+5, ve, kindPassword)
		}
		if name != "pass" {
			return span{}, false
		}
	case single && (name == "p" && cmd.names(s, i, cmdLogin|cmdMongo) || name == "a" && cmd.names(s, i, cmdRedis) ||
		name == "w" && cmd.names(s, i, cmdLDAP)):
		if vs, ve, _, ok := value(s, p); !ok || run(s, vs, cDigit, ve-vs) == ve-vs {
			return span{}, false // a port
		}
		return valueSpan(s, p, passwordName, false)
	}
	cls := classify(name)
	if cls == notSecret {
		return span{}, false
	}
	return valueSpan(s, p, cls, false)
}

// secretPart returns the span of s[vs:ve], the secret part of a value
// (after "user:" or "pass:"), found as k, unless it is a placeholder. A
// part that runs into a cut ends there.
func secretPart(s string, vs, ve int, k kind) (span, bool) {
	ve, _ = cutValue(s, vs, ve)
	if vs >= ve || placeholder(s[vs:ve]) {
		return span{}, false
	}
	return span{vs, ve, k}, true
}

// awsConfigAt matches the value of an AWS credential given without = or
// ':', as "aws configure set aws_secret_access_key VALUE" sets it.
func awsConfigAt(s string, i int) (span, bool) {
	var cls nameClass
	switch {
	case !before(s, i, cIdent):
		return span{}, false
	case hasPrefixFold(s[i:], "aws_secret_access_key"):
		cls = awsSecretName
	case hasPrefixFold(s[i:], "aws_session_token"):
		cls = genericName
	default:
		return span{}, false
	}
	k := run(s, i, cIdent, 64)
	p := k
	for p < len(s) && p-k < 4 && isSpace(s[p]) {
		p++
	}
	if p == k || p >= len(s) || !is(s[p], cB64) {
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
		if f, ok := webhookAt(s, a, e); ok {
			return f, true
		}
		// The authority may run into a cut before its @: user:pass….
		x := strings.Index(auth, ellipsis)
		if x < 0 && cutAt(s, e) {
			x = len(auth)
		}
		c := strings.IndexByte(auth[:max(x, 0)], ':')
		if x < 0 || c < 0 || run(auth, c+1, cDigit, x) == x || strings.IndexByte(auth[:x], '[') >= 0 {
			return span{}, false // no cut, host:port, or an IPv6 address
		}
		return secretPart(s, a+c+1, a+x, kindURLPassword)
	}
	// RFC 3986 has '[' percent-encoded in user information: one here starts
	// a mask.
	c := strings.IndexByte(auth[:at], ':')
	if c < 0 || strings.IndexByte(auth[:at], '[') >= 0 || placeholder(auth[c+1:at]) {
		return span{}, false
	}
	return span{a + c + 1, a + at, kindURLPassword}, true
}
