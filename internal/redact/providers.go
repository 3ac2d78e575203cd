package redact

import (
	"encoding/base64"
	"strings"
)

// This file holds the rules for the tokens of more providers: those whose
// shape is a prefix and a run of one class of bytes (npm, PyPI, age and the
// api-token list), and those with a shape of their own (SendGrid, Twilio,
// Discord, webhook URLs, HTTP basic credentials).

// A prefixed token is a fixed prefix and a body of min to max bytes of one
// class.
type prefixed struct {
	prefix   string
	body     uint16 // class of the body's bytes
	min, max int
	kind     kind
}

// prefixedTokens lists the tokens known by a prefix and a run of one class,
// as providers document them and public secret scanners match them.
var prefixedTokens = []prefixed{
	{"npm_", cWord, 36, 36, kindNPM},
	{"pypi-AgEIcHlwaS5vcmc", cAny, 50, 4096, kindPyPI},        // pypi.org
	{"pypi-AgENdGVzdC5weXBpLm9yZw", cAny, 50, 4096, kindPyPI}, // test.pypi.org
	{"AGE-SECRET-KEY-1", cUpper | cDigit, 58, 58, kindAge},
	// api-token: a long tail of providers, one kind.
	{"dop_v1_", cHex, 64, 64, kindAPIToken}, // DigitalOcean
	{"doo_v1_", cHex, 64, 64, kindAPIToken},
	{"dor_v1_", cHex, 64, 64, kindAPIToken},
	{"shpat_", cHex, 32, 32, kindAPIToken}, // Shopify
	{"shpca_", cHex, 32, 32, kindAPIToken},
	{"shppa_", cHex, 32, 32, kindAPIToken},
	{"shpss_", cHex, 32, 32, kindAPIToken},
	{"hvs.", cAny, 24, 512, kindAPIToken}, // HashiCorp Vault
	{"hvb.", cAny, 24, 512, kindAPIToken},
	{"glc_", cB64, 32, 512, kindAPIToken},           // Grafana Cloud
	{"glsa_", cUWord, 41, 41, kindAPIToken},         // Grafana service account
	{"gsk_", cWord, 52, 52, kindAPIToken},           // Groq
	{"pplx-", cWord, 48, 48, kindAPIToken},          // Perplexity
	{"xai-", cWord, 80, 80, kindAPIToken},           // xAI
	{"r8_", cWord, 37, 40, kindAPIToken},            // Replicate
	{"lin_api_", cWord, 40, 40, kindAPIToken},       // Linear
	{"PMAK-", cAny, 59, 59, kindAPIToken},           // Postman
	{"sntrys_", cB64 | cAny, 60, 512, kindAPIToken}, // Sentry
	{"sntryu_", cHex, 64, 64, kindAPIToken},
	{"NRAK-", cUpper | cDigit, 27, 27, kindAPIToken}, // New Relic
	{"dapi", cHex, 32, 32, kindAPIToken},             // Databricks
	{"ATATT3", cAny | cEq, 100, 512, kindAPIToken},   // Atlassian
	{"dp.pt.", cWord, 40, 44, kindAPIToken},          // Doppler
	{"dp.st.", cUWord | cHex, 40, 64, kindAPIToken},
	{"dp.sa.", cWord, 40, 44, kindAPIToken},
	{"pul-", cHex, 40, 40, kindAPIToken},                // Pulumi
	{"HRKU-", cAny, 36, 128, kindAPIToken},              // Heroku
	{"fo1_", cAny, 43, 43, kindAPIToken},                // Fly.io
	{"ya29.", cAny, 20, 4096, kindAPIToken},             // Google OAuth access token
	{"GOCSPX-", cAny, 28, 28, kindAPIToken},             // Google OAuth client secret
	{"rubygems_", cHex, 48, 48, kindAPIToken},           // RubyGems
	{"api_org_", cLower | cUpper, 34, 34, kindAPIToken}, // Hugging Face organization
	{"whsec_", cB64, 32, 100, kindAPIToken},             // Stripe webhook signing secret
	{"sq0atp-", cAny, 22, 22, kindAPIToken},             // Square
	{"sq0csp-", cAny, 43, 43, kindAPIToken},
	{"key-", cHex, 32, 32, kindAPIToken}, // Mailgun
}

// byFirst indexes prefixedTokens by the first byte of their prefix.
var byFirst = func() (idx [256][]*prefixed) {
	for i := range prefixedTokens {
		t := &prefixedTokens[i]
		idx[t.prefix[0]] = append(idx[t.prefix[0]], t)
	}
	return idx
}()

// prefixedAt matches a token of prefixedTokens at i.
func prefixedAt(s string, i int) (span, bool) {
	for _, t := range byFirst[s[i]] {
		if !strings.HasPrefix(s[i:], t.prefix) || !before(s, i, cAny) {
			continue
		}
		b := i + len(t.prefix)
		e := run(s, b, t.body, t.max+1)
		switch n := e - b; {
		case n >= t.min && n <= t.max && after(s, e, cAny|t.body) && !filler(s[b:e]):
			return span{i, e, t.kind}, true
		case n < t.min && cutToken(s, b, e):
			return span{i, e, t.kind}, true
		}
	}
	return span{}, false
}

// sendGridAt matches a SendGrid API key: SG., 22 base64url characters, a
// dot and 43 more.
func sendGridAt(s string, i int) (span, bool) {
	if !strings.HasPrefix(s[i:], "SG.") || !before(s, i, cAny) {
		return span{}, false
	}
	b := i + len("SG.")
	d := run(s, b, cAny, 23)
	if d-b == 22 && d < len(s) && s[d] == '.' {
		e := run(s, d+1, cAny, 44)
		if e-(d+1) == 43 && after(s, e, cAny) && !filler(s[b:e]) || e-(d+1) < 43 && cutToken(s, d+1, e) {
			return span{i, e, kindSendGrid}, true
		}
	}
	if d-b < 22 && cutToken(s, b, d) {
		return span{i, d, kindSendGrid}, true
	}
	return span{}, false
}

// twilioAt matches Twilio's API key SIDs (SK) and account SIDs (AC): the
// two letters and 32 hex digits. The SID of an API key is half of a
// credential; an account SID with its auth token is a whole one.
func twilioAt(s string, i int) (span, bool) {
	if !(strings.HasPrefix(s[i:], "SK") || strings.HasPrefix(s[i:], "AC")) || !before(s, i, cWord) {
		return span{}, false
	}
	b := i + 2
	e := run(s, b, cHex, 33)
	if e-b == 32 && after(s, e, cWord) && !filler(s[b:e]) {
		if m, _ := classes(s[b:e]); m&cDigit != 0 && m&(cLower|cUpper) != 0 {
			return span{i, e, kindTwilio}, true
		}
	}
	return span{}, false
}

// discordAt matches a Discord bot token: the base64 of the bot's numeric
// id (17 to 20 digits, so it starts with M, N or O), a dot, 6 or 7
// characters of timestamp, a dot and an HMAC of 27 or more.
func discordAt(s string, i int) (span, bool) {
	if !before(s, i, cAny) {
		return span{}, false
	}
	h := run(s, i, cAny, 29)
	if h-i < 23 || h-i > 28 || h >= len(s) || s[h] != '.' {
		return span{}, false
	}
	id, err := base64.RawURLEncoding.DecodeString(s[i:h])
	if err != nil || len(id) < 17 {
		return span{}, false
	}
	for _, c := range id {
		if !isDigit(c) {
			return span{}, false
		}
	}
	t := run(s, h+1, cAny, 8)
	if t-(h+1) < 6 || t-(h+1) > 7 || t >= len(s) || s[t] != '.' {
		return span{}, false
	}
	e := run(s, t+1, cAny, 128)
	if e-(t+1) >= 27 && after(s, e, cAny) && !filler(s[t+1:e]) || cutToken(s, t+1, e) {
		return span{i, e, kindDiscord}, true
	}
	return span{}, false
}

// webhookAt matches the secret part of a webhook URL whose authority is
// s[a:e]: Slack's https://hooks.slack.com/services/T…/B…/…, and Discord's
// https://discord.com/api/webhooks/<id>/<token>. Whoever holds the URL can
// post as the hook.
func webhookAt(s string, a, e int) (span, bool) {
	host := strings.ToLower(s[a:e])
	var paths []string
	var k kind
	switch host {
	case "hooks.slack.com":
		paths, k = []string{"/services/", "/workflows/", "/triggers/"}, kindSlackWebhook
	case "discord.com", "discordapp.com", "ptb.discord.com", "canary.discord.com":
		paths, k = []string{"/api/webhooks/"}, kindDiscordWebhook
	default:
		return span{}, false
	}
	for _, p := range paths {
		if strings.HasPrefix(s[e:], p) {
			b := e + len(p)
			end := b
			for end < len(s) && end-b < 512 && (is(s[end], cAny) || s[end] == '/') {
				end++
			}
			if end-b >= 20 || cutToken(s, b, end) {
				return span{b, end, k}, true
			}
		}
	}
	return span{}, false
}

// basicAt matches the credentials of HTTP basic authentication after
// "Basic " (any case), as sent in an Authorization header: the base64 of
// user:password.
func basicAt(s string, i int) (span, bool) {
	j, ok := credentialsAt(s, i, "basic")
	if !ok {
		return span{}, false
	}
	e := run(s, j, cB64, 4096)
	if userPassword(s[j:e]) && after(s, e, cB64) || cutToken(s, j, e) {
		return span{j, e, kindBasicAuth}, true
	}
	return span{}, false
}

// userPassword reports whether v is the base64 of "user:password" with a
// password, as HTTP basic authentication and Docker's config.json hold
// them.
func userPassword(v string) bool {
	if len(v) < 8 {
		return false
	}
	raw, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		raw, err = base64.RawStdEncoding.DecodeString(v)
	}
	if err != nil {
		return false
	}
	user, pass, ok := strings.Cut(string(raw), ":")
	if !ok || pass == "" || placeholder(pass) {
		return false
	}
	for _, c := range []byte(user + pass) {
		if c < ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}
