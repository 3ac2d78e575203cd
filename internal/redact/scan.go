package redact

// A kind is what a masked value was found as. Kinds are ordered from the
// most specific to the least: when two rules find the same text, the lower
// kind names it.
type kind uint8

const (
	kindPrivateKey kind = iota
	kindAnthropic
	kindOpenAI
	kindGitHub
	kindGitLab
	kindSlack
	kindSlackWebhook
	kindDiscordWebhook
	kindDiscord
	kindAWSAccessKey
	kindAWSSecret
	kindGoogle
	kindHuggingFace
	kindStripe
	kindNPM
	kindPyPI
	kindSendGrid
	kindTwilio
	kindAzureKey
	kindAge
	kindAPIToken
	kindJWT
	kindSignature
	kindBasicAuth
	kindURLPassword
	kindBearer
	kindPassword
	kindGeneric
	kindHost
	kindUser
)

// kinds names each kind, as it appears in masks; the package comment
// describes them. The names are part of the output and stay stable.
var kinds = [...]string{
	kindPrivateKey:     "private-key",
	kindAnthropic:      "anthropic-key",
	kindOpenAI:         "openai-key",
	kindGitHub:         "github-token",
	kindGitLab:         "gitlab-token",
	kindSlack:          "slack-token",
	kindSlackWebhook:   "slack-webhook",
	kindDiscordWebhook: "discord-webhook",
	kindDiscord:        "discord-token",
	kindAWSAccessKey:   "aws-access-key",
	kindAWSSecret:      "aws-secret",
	kindGoogle:         "google-api-key",
	kindHuggingFace:    "huggingface-token",
	kindStripe:         "stripe-key",
	kindNPM:            "npm-token",
	kindPyPI:           "pypi-token",
	kindSendGrid:       "sendgrid-key",
	kindTwilio:         "twilio-key",
	kindAzureKey:       "azure-key",
	kindAge:            "age-key",
	kindAPIToken:       "api-token",
	kindJWT:            "jwt",
	kindSignature:      "signature",
	kindBasicAuth:      "basic-auth",
	kindURLPassword:    "url-password",
	kindBearer:         "bearer-token",
	kindPassword:       "password",
	kindGeneric:        "generic-secret",
	kindHost:           "host",
	kindUser:           "user",
}

// Kinds returns the names of the secret kinds, from the most specific to
// the least, as they appear in "[secret:<kind>:<hash>]". The caller owns
// the slice.
func Kinds() []string {
	var names []string
	for k := range kindHost {
		names = append(names, kinds[k])
	}
	return names
}

// A pairTable holds one bit for each two-byte sequence: set when the pair
// can begin something to mask. Scanning costs one table lookup per byte,
// and the rules run only where a bit is set.
type pairTable [1 << 16 / 64]uint64

func (t *pairTable) set(a, b byte) {
	v := uint(a)<<8 | uint(b)
	t[v>>6] |= 1 << (v & 63)
}

// A tripleTable holds one bit for each three-byte sequence, by a hash:
// set when the three bytes can begin a token a rule anchored at a letter
// looks for. Most letter pairs the pair table lets through are words, and
// this second look turns them away before the rules run.
type tripleTable [1 << 16 / 64]uint64

func tripleBit(a, b, c byte) uint32 {
	return (uint32(a)<<16 | uint32(b)<<8 | uint32(c)) * 0x9E3779B1 >> 16
}

func (t *tripleTable) set(a, b, c byte) {
	v := tripleBit(a, b, c)
	t[v>>6] |= 1 << (v & 63)
}

func (t *tripleTable) has(a, b, c byte) bool {
	v := tripleBit(a, b, c)
	return t[v>>6]&(1<<(v&63)) != 0
}

// tokenStarts are the first three bytes of what the rules anchored at a
// letter look for; in the third place, '*' stands for any byte of
// [A-Za-z0-9_-] and '#' for any hex digit. Case-blind words (Bearer,
// Basic, aws_) come in every case by foldStarts, and prefixedTokens and
// gitlabPrefixes add their own.
var tokenStarts = []string{
	"sk-", "sk_", "rk_", // OpenAI, Anthropic, Stripe
	"ghp", "gho", "ghu", "ghs", "ghr", "git", // GitHub
	"xox", "xap", // Slack
	"AKI", "ASI", "ABI", "ACC", "AIz", // AWS, Google
	"AC#", "SK#", "SG.", // Twilio, SendGrid
	"hf_",                                                                // Hugging Face
	"yJ*",                                                                // the "eyJ" of a JWT, seen from its second byte
	"MD*", "MT*", "Mj*", "Mz*", "ND*", "NT*", "Nj*", "Nz*", "OD*", "OT*", // Discord
}

// foldStarts are the starts of words the rules read in any case.
var foldStarts = []string{"bea", "bas", "aws"}

var secretPairs, hostPairs, letterStarts = buildPairs()

func buildPairs() (secrets, hosts pairTable, starts tripleTable) {
	add := func(p string) {
		secrets.set(p[0], p[1])
		for c := 0; c < 256; c++ {
			if p[2] == byte(c) || p[2] == '*' && is(byte(c), cAny) || p[2] == '#' && is(byte(c), cHex) {
				starts.set(p[0], p[1], byte(c))
			}
		}
	}
	for _, p := range tokenStarts {
		add(p)
	}
	for _, p := range foldStarts {
		for m := range 8 {
			b := []byte(p)
			for j := range b {
				if m&(1<<j) != 0 {
					b[j] -= 'a' - 'A'
				}
			}
			add(string(b))
		}
	}
	for _, t := range prefixedTokens {
		add(t.prefix[:3])
	}
	for _, p := range gitlabPrefixes {
		add(p[:3])
	}
	secrets.set('-', '-') // private key blocks, --flags
	for c := 0; c < 256; c++ {
		secrets.set('=', byte(c)) // NAME=value
		secrets.set(':', byte(c)) // URLs, "name": value
		if isLetter(byte(c)) {
			secrets.set('-', byte(c)) // -flags
		}
	}
	hosts = secrets
	for c := byte('0'); c <= '9'; c++ {
		hosts.set(c, '.') // IPv4; IPv6 comes through ':'
	}
	hosts.set('/', 'h')  // /home/
	hosts.set('/', 'U')  // /Users/
	hosts.set('\\', 'U') // C:\Users\
	return secrets, hosts, starts
}

// find returns the spans to mask in s, in no particular order and possibly
// overlapping.
func (r *Redactor) find(s string) []span {
	var found []span
	var cmd cmdMemo
	skipFrom, skipTo := 0, 0 // a value found from before it, not to scan again
	for i := nextAnchor(s, r.pairs, 1); i < len(s); i = nextAnchor(s, r.pairs, i+1) {
		if i-1 < skipTo && i-1 >= skipFrom {
			continue
		}
		if c := s[i-1]; isLetter(c) && (i+1 >= len(s) || !letterStarts.has(c, s[i], s[i+1])) {
			continue
		}
		n := len(found)
		var j int
		found, j = r.at(s, i-1, found, &cmd)
		switch {
		case j > i-1:
			i = j + 1 // resume with the pair that starts after j
		case len(found) > n && found[len(found)-1].start > i-1:
			// A value after its name or flag: what lies between is still
			// scanned (the user of "curl -u user:password" may be a
			// token), the value is not.
			skipFrom, skipTo = found[len(found)-1].start, found[len(found)-1].end
		}
	}
	return found
}

// nextAnchor returns the least i ≥ from such that the pair s[i-1], s[i] is
// set in t, or len(s): the next place where something to mask may begin.
// It is the loop every byte goes through, one table lookup each.
func nextAnchor(s string, t *pairTable, from int) int {
	if from < 1 || from >= len(s) {
		return len(s)
	}
	v := uint16(s[from-1])
	for i := from; i < len(s); i++ {
		v = v<<8 | uint16(s[i])
		if t[v>>6]&(1<<(v&63)) != 0 {
			return i
		}
	}
	return len(s)
}

// at runs the rules anchored at s[i] and s[i+1]. It returns found with
// what they found appended, and the index of the last byte the rules have
// consumed, at least i: the scan resumes after it.
func (r *Redactor) at(s string, i int, found []span, cmd *cmdMemo) ([]span, int) {
	var f span
	ok := false
	switch c := s[i]; c {
	case 's':
		f, ok = skAt(s, i)
	case 'r':
		f, ok = stripeAt(s, i)
	case 'g':
		f, ok = gitAt(s, i)
	case 'x':
		f, ok = slackAt(s, i)
	case 'A', 'a':
		if c == 'A' {
			if f, ok = awsGoogleAt(s, i); !ok {
				f, ok = twilioAt(s, i)
			}
		}
		if !ok {
			if f, ok = awsConfigAt(s, i); ok {
				return valueFound(s, i, found, f, ok)
			}
		}
	case 'S':
		if f, ok = sendGridAt(s, i); !ok {
			f, ok = twilioAt(s, i)
		}
	case 'M', 'N', 'O':
		f, ok = discordAt(s, i)
	case 'h':
		f, ok = huggingFaceAt(s, i)
	case 'y':
		if f, ok = jwtAt(s, i); ok {
			return append(found, f), f.end - 1
		}
	case 'B', 'b':
		if f, ok = bearerAt(s, i); !ok {
			f, ok = basicAt(s, i)
		}
		return valueFound(s, i, found, f, ok)
	case '-':
		if f, ok = privateKeyAt(s, i); ok {
			return append(found, f), f.end - 1
		}
		f, ok = flagAt(s, i, cmd)
		return valueFound(s, i, found, f, ok)
	case '=':
		f, ok = assignAt(s, i)
		return valueFound(s, i, found, f, ok)
	case ':':
		if i+2 < len(s) && s[i+1] == '/' && s[i+2] == '/' {
			f, ok = urlAt(s, i)
		} else {
			f, ok = assignAt(s, i)
		}
		if ok || !r.hosts {
			return valueFound(s, i, found, f, ok)
		}
		f, ok = ipv6At(s, i)
	case '/', '\\':
		if r.hosts {
			f, ok = userAt(s, i)
		}
	default:
		if r.hosts && isDigit(c) {
			if f, ok = ipv4At(s, i); ok {
				return append(found, f), f.end - 1
			}
		}
	}
	if !ok && byFirst[s[i]] != nil {
		f, ok = prefixedAt(s, i)
	}
	if ok {
		found = append(found, f)
	}
	return found, i
}

// valueFound ends at() for the rules that find a value by what stands before
// it (a name, a flag, Bearer, a URL's user). The value is masked whole, so
// find's scan skips it, which keeps a text such as "password=password=…"
// linear; a token rule that matches at the value's start still names it,
// so GITHUB_TOKEN=ghp_… is a github-token and not a generic-secret.
func valueFound(s string, i int, found []span, f span, ok bool) ([]span, int) {
	if !ok {
		return found, i
	}
	if t, ok := tokenAt(s, f.start); ok && skipBreaks(s, t.end) >= f.end {
		f.kind = t.kind
		f.end = max(f.end, t.end)
	}
	if f.start <= i {
		return append(found, f), max(i, f.end-1)
	}
	return append(found, f), i
}

// tokenAt runs the rule for a self-describing token at s[i], if any.
func tokenAt(s string, i int) (span, bool) {
	if i+2 >= len(s) {
		return span{}, false
	}
	if f, ok := prefixedAt(s, i); ok {
		return f, true
	}
	switch s[i] {
	case 's':
		return skAt(s, i)
	case 'r':
		return stripeAt(s, i)
	case 'g':
		return gitAt(s, i)
	case 'x':
		return slackAt(s, i)
	case 'A':
		if f, ok := awsGoogleAt(s, i); ok {
			return f, true
		}
		return twilioAt(s, i)
	case 'S':
		if f, ok := sendGridAt(s, i); ok {
			return f, true
		}
		return twilioAt(s, i)
	case 'M', 'N', 'O':
		return discordAt(s, i)
	case 'h':
		return huggingFaceAt(s, i)
	case 'e':
		if s[i+1] == 'y' {
			return jwtAt(s, i+1)
		}
	case '-':
		return privateKeyAt(s, i)
	}
	return span{}, false
}
