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

var secretPairs, hostPairs = buildPairs()

func buildPairs() (secrets, hosts pairTable) {
	for _, p := range []string{
		"sk", "rk", // OpenAI, Anthropic, Stripe
		"gh", "gi", "gl", // GitHub, GitLab
		"xo", "xa", // Slack
		"AK", "AS", "AI", "AB", "AC", // AWS, Google, Twilio
		"hf",                   // Hugging Face
		"yJ",                   // the "eyJ" of a JWT, seen from its second byte
		"--",                   // private key blocks, --flags
		"Be", "be", "BE", "bE", // Bearer
		"Ba", "ba", "BA", "bA", // Basic
		"SG", "SK", // SendGrid, Twilio
		"aw", "AW", "Aw", "aW", // aws_secret_access_key without = or :
		"MD", "MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT", // Discord
	} {
		secrets.set(p[0], p[1])
	}
	for _, t := range prefixedTokens {
		secrets.set(t.prefix[0], t.prefix[1])
	}
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
	return secrets, hosts
}

// find returns the spans to mask in s, in no particular order and possibly
// overlapping.
func (r *Redactor) find(s string) []span {
	if len(s) < 2 {
		return nil
	}
	var found []span
	var cmd cmdMemo
	t := r.pairs
	v := uint16(s[0])
	skipFrom, skipTo := -1, 0 // a value found from before it, not to scan again
	for i := 1; i < len(s); i++ {
		if i-1 == skipFrom {
			i = skipTo
			if i >= len(s) {
				break
			}
			v = uint16(s[i])
			continue
		}
		v = v<<8 | uint16(s[i])
		if t[v>>6]&(1<<(v&63)) == 0 {
			continue
		}
		n := len(found)
		var j int
		found, j = r.at(s, i-1, found, &cmd)
		switch {
		case j > i-1:
			i = j + 1
			if i >= len(s) {
				return found
			}
			v = uint16(s[i])
		case len(found) > n && found[len(found)-1].start > i-1:
			// A value after its name or flag: what lies between is still
			// scanned (the user of "curl -u user:password" may be a
			// token), the value is not.
			skipFrom, skipTo = found[len(found)-1].start, found[len(found)-1].end
		}
	}
	return found
}

// at runs the rules anchored at s[i] and s[i+1]. It returns found with
// what they found appended, and the index of the last byte the rules have
// consumed, at least i: the scan resumes after it.
func (r *Redactor) at(s string, i int, found []span, cmd *cmdMemo) ([]span, int) {
	if f, ok := prefixedAt(s, i); ok {
		return append(found, f), i
	}
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
	case 'A':
		if f, ok = awsGoogleAt(s, i); !ok {
			if f, ok = twilioAt(s, i); !ok {
				f, ok = awsConfigAt(s, i)
				return valueFound(s, i, found, f, ok)
			}
		}
	case 'a':
		f, ok = awsConfigAt(s, i)
		return valueFound(s, i, found, f, ok)
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
