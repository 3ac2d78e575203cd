package redact

import "strings"

// This file holds the rules for tokens that carry their own prefix. Each
// takes the text and the index of its anchor, and returns the token's span.
// Formats were taken from the providers' documentation and from public
// secret scanners' rule sets; the code and patterns here are our own.

const (
	cWord = cLower | cUpper | cDigit // [A-Za-z0-9]
	cAny  = cB64URL                  // [A-Za-z0-9_-]
)

// skAt matches OpenAI keys (sk-…, sk-proj-…), the keys of the providers
// that copied their shape (OpenRouter's sk-or-v1-, DeepSeek's sk- and 32
// hex digits) and Anthropic keys (sk-ant-…), and hands sk_ to stripeAt.
func skAt(s string, i int) (span, bool) {
	if !before(s, i, cAny) || i+3 > len(s) {
		return span{}, false
	}
	switch s[i+2] {
	case '_':
		return stripeAt(s, i)
	case '-':
	default:
		return span{}, false
	}
	if strings.HasPrefix(s[i:], "sk-ant-") {
		// sk-ant-api03-, sk-ant-admin01-, sk-ant-oat01-…: a long random tail.
		b := i + len("sk-ant-")
		e := run(s, b, cAny, 512)
		if e-b >= 32 && after(s, e, cAny) && !filler(s[b:e]) {
			return span{i, e, kindAnthropic}, true
		}
		if p := b + len(subPrefix(s[b:e])); cutToken(s, p, e) {
			return span{i, e, kindAnthropic}, true
		}
		return span{}, false
	}
	// Legacy keys are sk- and 48 alphanumerics; project, service-account and
	// admin keys add a word and a dash and run to 160 or more. All are
	// random, so they mix upper case, lower case and digits, which words
	// such as "sk-learn" or "sk-some-long-option-name" do not; keys of hex
	// digits, which hold no upper case, hold no dash either.
	b := i + len("sk-")
	e := run(s, b, cAny, 512)
	body := s[b:e]
	m, distinct := classes(body)
	switch {
	case len(body) >= 32 && after(s, e, cAny) && !filler(body) &&
		(count(m) == 3 || count(m) == 2 && distinct >= 10 && run(body, len(subPrefix(body)), cWord, len(body)) == len(body)):
		return span{i, e, kindOpenAI}, true
	case cutToken(s, b+len(subPrefix(body)), e):
		return span{i, e, kindOpenAI}, true
	}
	return span{}, false
}

// subPrefix returns the word and dash that start the body of some keys
// (proj-, svcacct-, admin-, or-v1-, api03-): a part of the key that tells
// its kind, not a secret.
func subPrefix(body string) string {
	j := run(body, 0, cLower|cDigit, 12)
	if j == len(body) || body[j] != '-' {
		return ""
	}
	if k := run(body, j+1, cLower|cDigit, 4); k < len(body) && body[k] == '-' && strings.HasPrefix(body, "or-") {
		j = k // or-v1-
	}
	return body[:j+1]
}

// stripeAt matches Stripe secret and restricted keys: sk_ or rk_, live_,
// test_ or prod_, then 16 or more alphanumerics (24 in old keys, about 100
// in new ones). Publishable keys (pk_) are public by design.
func stripeAt(s string, i int) (span, bool) {
	if !before(s, i, cAny) || !(strings.HasPrefix(s[i:], "sk_") || strings.HasPrefix(s[i:], "rk_")) {
		return span{}, false
	}
	for _, mode := range []string{"live_", "test_", "prod_"} {
		if strings.HasPrefix(s[i+3:], mode) {
			b := i + 3 + len(mode)
			e := run(s, b, cWord, 256)
			if e-b >= 16 && after(s, e, cAny) && !filler(s[b:e]) || cutToken(s, b, e) {
				return span{i, e, kindStripe}, true
			}
		}
	}
	return span{}, false
}

// gitlabPrefixes are GitLab's token prefixes: personal, deploy, runner,
// pipeline trigger, feed, SCIM, OAuth application, CI job, incoming mail,
// Kubernetes agent and feature-flag tokens.
var gitlabPrefixes = []string{
	"glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glsoat-", "gloas-", "glcbt-", "glimt-", "glagent-", "glffct-",
}

// gitAt matches GitHub and GitLab tokens.
func gitAt(s string, i int) (span, bool) {
	if !before(s, i, cAny) || i+4 > len(s) {
		return span{}, false
	}
	// Fine-grained tokens: github_pat_ + 22 + _ + 59 (82 in all); accept 40
	// and more in case the lengths change.
	if strings.HasPrefix(s[i:], "github_pat_") {
		b := i + len("github_pat_")
		e := run(s, b, cUWord, 256)
		if e-b >= 40 && after(s, e, cAny) && !filler(s[b:e]) || cutToken(s, b, e) {
			return span{i, e, kindGitHub}, true
		}
		return span{}, false
	}
	// Classic tokens: gh + kind letter + _ + 36 base62 (30 random and a
	// 6-character checksum).
	if s[i+1] == 'h' {
		if strings.IndexByte("pousr", s[i+2]) >= 0 && s[i+3] == '_' {
			b := i + 4
			e := run(s, b, cWord, 37)
			if e-b == 36 && after(s, e, cAny) && !filler(s[b:e]) || e-b < 36 && cutToken(s, b, e) {
				return span{i, e, kindGitHub}, true
			}
		}
		return span{}, false
	}
	for _, p := range gitlabPrefixes {
		if !strings.HasPrefix(s[i:], p) {
			continue
		}
		// 20 base64url characters, or, in routable tokens, 27 or more and a
		// dot and 9 lower-case alphanumerics.
		b := i + len(p)
		e := run(s, b, cAny, 300)
		body := s[b:e]
		if cutToken(s, b, e) {
			return span{i, e, kindGitLab}, true
		}
		if m, _ := classes(body); len(body) < 20 || count(m) < 2 || filler(body) {
			return span{}, false
		}
		if e < len(s) && s[e] == '.' {
			f := run(s, e+1, cLower|cDigit, 10)
			if f-(e+1) == 9 && after(s, f, cAny) {
				e = f
			}
		}
		if !after(s, e, cAny) {
			return span{}, false
		}
		return span{i, e, kindGitLab}, true
	}
	return span{}, false
}

// slackAt matches Slack tokens: xoxb- (bot), xoxp- (user), xoxa- and
// xoxr- (workspace access and refresh), xoxe- (rotating), xoxs- (legacy)
// and xapp- (app-level), followed by dash-separated numbers and a random
// part.
func slackAt(s string, i int) (span, bool) {
	if !before(s, i, cAny) || i+5 > len(s) {
		return span{}, false
	}
	isXox := strings.HasPrefix(s[i:], "xox") && strings.IndexByte("abeprs", s[i+3]) >= 0 && s[i+4] == '-'
	if !isXox && !strings.HasPrefix(s[i:], "xapp-") {
		return span{}, false
	}
	b := i + 5
	e := run(s, b, cAny, 300)
	body := s[b:e]
	digits := 0
	for j := 0; j < len(body); j++ {
		if isDigit(body[j]) {
			digits++
		}
	}
	if len(body) >= 10 && digits >= 8 && after(s, e, cAny) && !filler(body) || cutToken(s, b, e) {
		return span{i, e, kindSlack}, true
	}
	return span{}, false
}

// awsGoogleAt matches AWS access key IDs (AKIA for long-term keys, ASIA
// for temporary STS keys, ABIA and ACCA for service-specific ones: 20
// upper-case base32 characters in all) and
// Google API keys (AIza and 35 base64url characters).
func awsGoogleAt(s string, i int) (span, bool) {
	switch {
	case strings.HasPrefix(s[i:], "AKIA"), strings.HasPrefix(s[i:], "ASIA"), strings.HasPrefix(s[i:], "ABIA"), strings.HasPrefix(s[i:], "ACCA"):
		if !before(s, i, cWord) {
			return span{}, false
		}
		b := i + 4
		e := run(s, b, cUpper|cDigit, 17)
		if e-b == 16 && after(s, e, cWord) && !filler(s[b:e]) || e-b < 16 && cutToken(s, b, e) {
			return span{i, e, kindAWSAccessKey}, true
		}
	case strings.HasPrefix(s[i:], "AIza"):
		if !before(s, i, cAny) {
			return span{}, false
		}
		b := i + 4
		e := run(s, b, cAny, 36)
		if e-b == 35 && after(s, e, cAny) && !filler(s[b:e]) || e-b < 35 && cutToken(s, b, e) {
			return span{i, e, kindGoogle}, true
		}
	}
	return span{}, false
}

// huggingFaceAt matches Hugging Face user access tokens: hf_ and 34 letters
// of both cases today; 30 to 40 alphanumerics are accepted.
func huggingFaceAt(s string, i int) (span, bool) {
	if !before(s, i, cAny) || !strings.HasPrefix(s[i:], "hf_") {
		return span{}, false
	}
	b := i + 3
	e := run(s, b, cWord, 41)
	body := s[b:e]
	if m, _ := classes(body); len(body) >= 30 && len(body) <= 40 && m&cLower != 0 && m&cUpper != 0 &&
		after(s, e, cAny) && !filler(body) || len(body) < 30 && cutToken(s, b, e) {
		return span{i, e, kindHuggingFace}, true
	}
	return span{}, false
}

// jwtAt matches a JSON Web Token from the "yJ" at i: a header that starts
// eyJ (base64url of `{"`), a payload and a signature, joined by dots. An
// unsecured token ("alg":"none") has an empty signature; its header and
// payload are still masked.
func jwtAt(s string, i int) (span, bool) {
	st := i - 1
	if st < 0 || s[st] != 'e' || !before(s, st, cAny) {
		return span{}, false
	}
	h := run(s, st, cAny, 4096)
	if h-st < 10 || h >= len(s) || s[h] != '.' {
		return span{}, false
	}
	p := run(s, h+1, cAny, 1<<16)
	if cutToken(s, h+1, p) { // the header is public; the claims are not
		return span{st, p, kindJWT}, true
	}
	if p-(h+1) < 8 || p >= len(s) || s[p] != '.' {
		return span{}, false
	}
	e := run(s, p+1, cAny, 4096)
	if !after(s, e, cAny) {
		return span{}, false
	}
	if e == p+1 {
		e = p // no signature: leave the final dot
	}
	return span{st, e, kindJWT}, true
}

// credentialsAt returns where the credentials of an Authorization header
// begin after its scheme (lower case, as "bearer"): the scheme at i of s
// in any case and at the start of a word, then one to eight spaces.
func credentialsAt(s string, i int, scheme string) (int, bool) {
	if !hasPrefixFold(s[i:], scheme) || !before(s, i, cWord) {
		return 0, false
	}
	k := i + len(scheme)
	j := k
	for j < len(s) && j-k < 8 && isSpace(s[j]) {
		j++
	}
	return j, j > k
}

// bearerAt matches the token after "Bearer " (any case), as sent in an
// Authorization header: an RFC 6750 b64token, [A-Za-z0-9._~+/-] and then
// = padding. The token must look generated and hold a digit, so that prose
// ("the bearer of this letter", "Bearer authentication"), code and
// placeholders ("Bearer $TOKEN", "Bearer <token>", "Bearer YOUR_TOKEN")
// are left alone.
func bearerAt(s string, i int) (span, bool) {
	k, ok := credentialsAt(s, i, "bearer")
	if !ok {
		return span{}, false
	}
	e := run(s, k, cBearer&^cEq, 8192)
	for e < len(s) && s[e] == '=' {
		e++
	}
	if !after(s, e, cBearer) {
		return span{}, false
	}
	for e > k && s[e-1] == '.' { // the end of a sentence
		e--
	}
	tok := s[k:e]
	if cutToken(s, k, e) && !placeholder(tok) {
		return span{k, e, kindBearer}, true
	}
	if m, _ := classes(tok); m&cDigit == 0 || placeholder(tok) || !randomish(tok) {
		return span{}, false
	}
	return span{k, e, kindBearer}, true
}

// maxKey bounds a private key block: an RSA 4096 key is about 3.3 KB, and a
// PGP private key block with subkeys rarely passes 16 KB.
const maxKey = 64 << 10

// privateKeyAt matches a PEM private key block, from "-----BEGIN … PRIVATE
// KEY-----" to its END line. A block cut short (a truncated tool output) is
// masked up to the end of its base64 lines. Its newlines may be real or
// escaped ("\n" inside a JSON string, as in a Google service account file).
func privateKeyAt(s string, i int) (span, bool) {
	const begin = "-----BEGIN "
	if !strings.HasPrefix(s[i:], begin) {
		return span{}, false
	}
	h := i + len(begin)
	d := strings.Index(s[h:min(h+64, len(s))], "-----")
	if d < 0 {
		return span{}, false
	}
	label := s[h : h+d]
	if !strings.HasSuffix(label, "PRIVATE KEY") && !strings.HasSuffix(label, "PRIVATE KEY BLOCK") {
		return span{}, false
	}
	body := h + d + len("-----")
	// A PEM body holds no "-----", so the first one after the BEGIN line is
	// its END line or there is none; stopping there keeps a text full of
	// BEGIN lines linear.
	if x := strings.Index(s[body:min(body+maxKey, len(s))], "-----"); x >= 0 && strings.HasPrefix(s[body+x:], "-----END ") {
		x += body
		y := x + len("-----END ")
		if t := strings.Index(s[y:min(y+64, len(s))], "-----"); t >= 0 {
			if n, ok := pemBody(s[body:x]); ok && n >= 32 {
				return span{i, y + t + len("-----"), kindPrivateKey}, true
			}
		}
	}
	// No END line: take the header lines, then the base64 lines.
	j := skipBreaks(s, body)
	for range 4 {
		l := lineEnd(s, j, 128)
		if !strings.Contains(s[j:l], ": ") {
			break
		}
		j = skipBreaks(s, l)
	}
	end, n := j, 0
	for j < len(s) && j-body < maxKey {
		switch c := s[j]; {
		case is(c, cB64):
			j++
			n++
			end = j
		case c == '\n' || c == '\r':
			j++
		case c == '\\':
			k := escapedBreak(s, j)
			if k == j {
				goto done
			}
			j = k
		default:
			goto done
		}
	}
done:
	// "-----BEGIN PRIVATE KEY-----\n...": a placeholder; but a block cut
	// short is a secret however little of it is left.
	if n < 32 && !(n > 0 && cutAt(s, end)) {
		return span{}, false
	}
	return span{i, end, kindPrivateKey}, true
}

// pemBody reports whether body is made only of what a PEM body holds
// (base64 lines, Proc-Type and DEK-Info headers, real or escaped line
// breaks) and counts its base64 bytes.
func pemBody(body string) (n int, ok bool) {
	for j := 0; j < len(body); j++ {
		c := body[j]
		switch {
		case is(c, cB64):
			n++
		case c == '\n' || c == '\r' || c == ' ' || c == '\t' || c == '\\' || c == ':' || c == ',' || c == '-':
		default:
			return n, false
		}
	}
	return n, true
}

// lineEnd returns the index of the next line break at or after j, real or
// escaped, looking at most max bytes ahead.
func lineEnd(s string, j, max int) int {
	for end := min(j+max, len(s)); j < end; j++ {
		if s[j] == '\n' || s[j] == '\r' || s[j] == '\\' && escapedBreak(s, j) > j {
			return j
		}
	}
	return j
}

// skipBreaks returns the index after the line breaks at j, real or escaped.
func skipBreaks(s string, j int) int {
	for j < len(s) {
		switch {
		case s[j] == '\n' || s[j] == '\r':
			j++
		case s[j] == '\\' && escapedBreak(s, j) > j:
			j = escapedBreak(s, j)
		default:
			return j
		}
	}
	return j
}

// escapedBreak returns the index after the escaped line break at j: "\n"
// or "\r" in a JSON string, or "\\n" once more escaped (JSON inside a JSON
// string), or j when there is none.
func escapedBreak(s string, j int) int {
	k := j
	for k < len(s) && k-j < 4 && s[k] == '\\' {
		k++
	}
	if k > j && k < len(s) && (s[k] == 'n' || s[k] == 'r') {
		return k + 1
	}
	return j
}
