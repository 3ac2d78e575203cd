package redact

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// redact has no golden files; the flag is declared so that
// "go test ./... -update" runs here too.
var _ = flag.Bool("update", false, "rewrite golden files (none here)")

// All secrets in these tests are fakes assembled at run time from a fixed
// generator, in the shape of the real thing, so that no key-like string is
// written in the source for scanners to find.

const (
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower  = "abcdefghijklmnopqrstuvwxyz"
	digits = "0123456789"
	alnum  = upper + lower + digits
	b64url = alnum + "-_"
	b64    = alnum + "+/"
	base32 = upper + "234567"
	hexLow = "0123456789abcdef"
	bech32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
)

// fake returns n bytes of alphabet drawn by a xorshift generator seeded
// with seed: a key's shape, none of its secrecy.
func fake(seed uint32, n int, alphabet string) string {
	x := seed*2654435761 + 0x9e3779b9
	b := make([]byte, n)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = alphabet[x%uint32(len(alphabet))]
	}
	return string(b)
}

func b64json(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// Fake secrets, one or two of each kind.
var (
	fakeAnthropic  = "sk-ant-" + "api03-" + fake(1, 93, b64url) + "AA"
	fakeOpenAI     = "sk-" + fake(2, 48, alnum)
	fakeOpenAIProj = "sk-" + "proj-" + fake(3, 74, b64url) + "T3Blbk" + "FJ" + fake(4, 74, b64url)
	fakeGitHub     = "ghp_" + fake(5, 36, alnum)
	fakeGitHub2    = "ghs_" + fake(6, 36, alnum)
	fakeGitHubPAT  = "github_pat_" + fake(7, 22, alnum) + "_" + fake(8, 59, alnum)
	fakeGitLab     = "glpat-" + fake(9, 20, b64url)
	fakeGitLabR    = "glpat-" + fake(10, 27, b64url) + "." + "01" + fake(11, 7, lower+digits)
	fakeSlack      = "xoxb-" + fake(12, 12, digits) + "-" + fake(13, 13, digits) + "-" + fake(14, 24, alnum)
	fakeSlackApp   = "xapp-" + "1-A" + fake(15, 10, upper+digits) + "-" + fake(16, 13, digits) + "-" + fake(17, 64, lower+digits)
	fakeAWSKey     = "AKIA" + fake(18, 16, base32)
	fakeAWSKey2    = "ASIA" + fake(19, 16, base32)
	fakeAWSSecret  = fake(20, 40, b64)
	fakeGoogle     = "AIza" + fake(21, 35, b64url)
	fakeHF         = "hf_" + fake(22, 34, upper+lower)
	fakeStripe     = "sk_" + "live_" + fake(23, 24, alnum)
	fakeStripeR    = "rk_" + "live_" + fake(24, 99, alnum)
	fakeStripeT    = "sk_" + "test_" + fake(25, 99, alnum)
	fakeJWT        = b64json(`{"alg":"HS256","typ":"JWT"}`) + "." +
		b64json(`{"sub":"1234567890","name":"Fake Person","iat":1516239022}`) + "." + fake(26, 43, b64url)
	fakeBearer = fake(27, 40, alnum)
	fakeToken  = fake(28, 40, alnum)
	fakePEM    = pemLines(fake(29, 64*12+20, b64))

	fakeNPM         = "npm_" + fake(40, 36, alnum)
	fakePyPI        = "pypi-" + "AgEIcHlwaS5vcmc" + fake(41, 150, b64url)
	fakeSendGrid    = "SG." + fake(42, 22, b64url) + "." + fake(43, 43, b64url)
	fakeTwilioSK    = "SK" + fake(44, 32, hexLow)
	fakeTwilioAC    = "AC" + fake(45, 32, hexLow)
	fakeTwilioAuth  = fake(46, 32, hexLow)
	fakeAzureKey    = fake(47, 86, b64) + "=="
	fakeSAS         = fake(48, 30, alnum) + "%2B" + fake(49, 8, alnum) + "%3D"
	fakeDockerAuth  = base64.StdEncoding.EncodeToString([]byte("deploy:" + fake(50, 20, alnum)))
	fakeSlackHook   = "T" + fake(51, 10, upper+digits) + "/B" + fake(52, 10, upper+digits) + "/" + fake(53, 24, alnum)
	fakeDiscordHook = fake(54, 18, digits) + "/" + fake(55, 68, b64url)
	fakeDiscord     = base64.RawURLEncoding.EncodeToString([]byte("1"+fake(56, 17, digits))) + "." + fake(57, 6, b64url) + "." + fake(58, 38, b64url)
	fakeAge         = "AGE-" + "SECRET-KEY-1" + fake(59, 58, bech32)
	fakeDigitalOcn  = "dop_" + "v1_" + fake(60, 64, hexLow)
	fakeGoogleOAuth = "ya" + "29." + fake(61, 120, b64url)
	fakeOpenRouter  = "sk-" + "or-v1-" + fake(62, 64, hexLow)
	fakeDeepSeek    = "sk-" + fake(63, 32, hexLow)
	fakeGCPKeyID    = fake(64, 40, hexLow)
)

func pemLines(body string) string {
	var b strings.Builder
	for len(body) > 64 {
		b.WriteString(body[:64] + "\n")
		body = body[64:]
	}
	b.WriteString(body + "==")
	return b.String()
}

// masks matches a mask, capturing what comes before the hash.
var masks = regexp.MustCompile(`\[((?:secret:[a-z0-9-]+)|host|user):[0-9a-f]{4}\]`)

// unhash drops the hashes from masks: "[secret:jwt:3f2a]" becomes
// "[secret:jwt]", so that expectations read plainly.
func unhash(s string) string { return masks.ReplaceAllString(s, "[$1]") }

func newTest(hosts bool) *Redactor {
	return New(Options{Hosts: hosts, Key: []byte("retrace test key")})
}

type tcase struct {
	name string
	in   string
	want string // the output with hashes dropped; "" means unchanged
}

// secretCases covers each kind with positives and negatives, and the
// false positives the rules guard against. The same cases run with
// Options.Hosts on, where they must give the same result.
var secretCases = []tcase{
	// private-key
	{"pem/rsa", "key:\n-----BEGIN RSA PRIVATE KEY-----\n" + fakePEM + "\n-----END RSA PRIVATE KEY-----\ndone", "key:\n[secret:private-key]\ndone"},
	{"pem/openssh", "-----BEGIN OPENSSH PRIVATE KEY-----\n" + fakePEM + "\n-----END OPENSSH PRIVATE KEY-----", "[secret:private-key]"},
	{"pem/pgp", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + fakePEM + "\n-----END PGP PRIVATE KEY BLOCK-----", "[secret:private-key]"},
	{"pem/encrypted-headers", "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0011\n\n" + fakePEM + "\n-----END RSA PRIVATE KEY-----", "[secret:private-key]"},
	{"pem/json-escaped", `{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\n` + strings.ReplaceAll(fakePEM, "\n", `\n`) + `\n-----END PRIVATE KEY-----\n", "client_email": "x@y"}`,
		`{"type": "service_account", "private_key": "[secret:private-key]", "client_email": "x@y"}`},
	{"pem/truncated", "$ cat id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n" + fakePEM[:300] + "\n[output truncated]", "$ cat id_rsa\n[secret:private-key]\n[output truncated]"},
	{"pem/placeholder", "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----", ""},
	{"pem/public", "-----BEGIN PUBLIC KEY-----\n" + fakePEM + "\n-----END PUBLIC KEY-----", ""},
	{"pem/certificate", "-----BEGIN CERTIFICATE-----\n" + fakePEM + "\n-----END CERTIFICATE-----", ""},

	// anthropic-key
	{"anthropic", "ANTHROPIC_API_KEY=" + fakeAnthropic, "ANTHROPIC_API_KEY=[secret:anthropic-key]"},
	{"anthropic/placeholder", "export ANTHROPIC_API_KEY=sk-ant-...", ""},
	{"anthropic/short", "sk-ant-api03-abc", ""},

	// openai-key
	{"openai/legacy", "key " + fakeOpenAI + " here", "key [secret:openai-key] here"},
	{"openai/project", `client = OpenAI(api_key="` + fakeOpenAIProj + `")`, `client = OpenAI(api_key="[secret:openai-key]")`},
	{"openai/placeholder", `OPENAI_API_KEY=sk-... or "sk-<your-key>" or $OPENAI_API_KEY`, ""},
	{"openai/words", "pip install sk-learn; task-force; sk-this-is-a-rather-long-kebab-case-option-name", ""},
	{"openai/glued", "mask" + fakeOpenAI, ""},

	// github-token
	{"github/classic", "GH_TOKEN=" + fakeGitHub + " gh pr list", "GH_TOKEN=[secret:github-token] gh pr list"},
	{"github/fine-grained", "token: " + fakeGitHubPAT, "token: [secret:github-token]"},
	{"github/in-url", "git clone https://x-access-token:" + fakeGitHub2 + "@github.com/o/r.git", "git clone https://x-access-token:[secret:github-token]@github.com/o/r.git"},
	{"github/short", "ghp_" + fake(30, 35, alnum), ""},
	{"github/long", "ghp_" + fake(31, 37, alnum), ""},
	{"github/filler", "ghp_" + strings.Repeat("x", 36), ""},

	// gitlab-token
	{"gitlab", "PRIVATE-TOKEN: " + fakeGitLab, "PRIVATE-TOKEN: [secret:gitlab-token]"},
	{"gitlab/routable", "glab auth login --token " + fakeGitLabR, "glab auth login --token [secret:gitlab-token]"},
	{"gitlab/placeholder", "glpat-XXXXXXXXXXX-XXXXXXXX and glpat-token-for-the-ci-pipeline", ""},

	// slack-token
	{"slack/bot", "SLACK_BOT_TOKEN=" + fakeSlack, "SLACK_BOT_TOKEN=[secret:slack-token]"},
	{"slack/app", "app token " + fakeSlackApp, "app token [secret:slack-token]"},
	{"slack/placeholder", "xoxb-xxxxxxxxx-xxxxxxxxxx-xxxxxxxx and xoxb-your-token and xoxo hugs", ""},

	// aws-access-key
	{"aws/key", "aws_access_key_id = " + fakeAWSKey, "aws_access_key_id = [secret:aws-access-key]"},
	{"aws/sts", `"AccessKeyId": "` + fakeAWSKey2 + `",`, `"AccessKeyId": "[secret:aws-access-key]",`},
	{"aws/example", "AKIAIOSFODNN7" + "EXAMPLE", ""},
	{"aws/short", "AKIA" + fake(32, 15, base32), ""},
	{"aws/glued", "X" + fakeAWSKey, ""},

	// aws-secret
	{"aws-secret/ini", "[default]\naws_secret_access_key = " + fakeAWSSecret + "\n", "[default]\naws_secret_access_key = [secret:aws-secret]\n"},
	{"aws-secret/env", "export AWS_SECRET_ACCESS_KEY=" + fakeAWSSecret, "export AWS_SECRET_ACCESS_KEY=[secret:aws-secret]"},
	{"aws-secret/json", `{"SecretAccessKey": "` + fakeAWSSecret + `"}`, `{"SecretAccessKey": "[secret:aws-secret]"}`},
	{"aws-secret/example", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY", ""},
	{"aws-secret/no-name", "40 chars: " + fakeAWSSecret, ""},

	// google-api-key
	{"google", "https://maps.googleapis.com/maps/api/js?key=" + fakeGoogle, "https://maps.googleapis.com/maps/api/js?key=[secret:google-api-key]"},
	{"google/short", "AIza" + fake(33, 34, b64url), ""},

	// huggingface-token
	{"huggingface", "huggingface-cli login --token " + fakeHF, "huggingface-cli login --token [secret:huggingface-token]"},
	{"huggingface/identifiers", "from huggingface_hub import hf_hub_download; hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", ""},

	// stripe-key
	{"stripe/live", "stripe.api_key = '" + fakeStripe + "'", "stripe.api_key = '[secret:stripe-key]'"},
	{"stripe/restricted", fakeStripeR, "[secret:stripe-key]"},
	{"stripe/test", "STRIPE_SECRET_KEY=" + fakeStripeT, "STRIPE_SECRET_KEY=[secret:stripe-key]"},
	{"stripe/publishable", "pk_" + "live_" + fake(34, 24, alnum), ""},
	{"stripe/short", "sk_test_abc", ""},

	// jwt
	{"jwt", "id_token=" + fakeJWT + "&state=1", "id_token=[secret:jwt]&state=1"},
	{"jwt/unsigned", "token " + b64json(`{"alg":"none"}`) + "." + b64json(`{"sub":"fake"}`) + ". ok", "token [secret:jwt]. ok"},
	{"jwt/one-part", "eyJhbGciOiJIUzI1NiJ9 alone", ""},
	{"jwt/short", "eyJhbGc.eyJ.x", ""},

	// bearer-token
	{"bearer", "curl -H 'Authorization: Bearer " + fakeBearer + "' https://api.example.com", "curl -H 'Authorization: Bearer [secret:bearer-token]' https://api.example.com"},
	{"bearer/jwt", "Authorization: Bearer " + fakeJWT, "Authorization: Bearer [secret:jwt]"},
	{"bearer/github", `-H "Authorization: bearer ` + fakeGitHub + `"`, `-H "Authorization: bearer [secret:github-token]"`},
	{"bearer/prose", "The bearer of this letter, and the Bearer authentication scheme.", ""},
	{"bearer/placeholders", `Authorization: Bearer $TOKEN, Bearer ${API_TOKEN}, Bearer <token>, Bearer YOUR_ACCESS_TOKEN_HERE, Bearer sk-...`, ""},

	// url-password
	{"url", "https://user:pa55w0rd@host/", "https://user:[secret:url-password]@host/"},
	{"url/postgres", "DATABASE_URL=postgres://app:s3cr3t-P@db.internal:5432/prod?sslmode=require", "DATABASE_URL=postgres://app:[secret:url-password]@db.internal:5432/prod?sslmode=require"},
	{"url/at-in-password", "redis://:p@ss@cache:6379/0", "redis://:[secret:url-password]@cache:6379/0"},
	{"url/no-password", "https://git@github.com/o/r and http://localhost:8080/x and ssh://host:22", ""},
	{"url/placeholders", "postgres://user:password@localhost/db https://u:${PASS}@h/ mysql://root:<pw>@h", ""},

	// password
	{"password/flag", "mysql -u root --password hunter2 -h db", "mysql -u root --password [secret:password] -h db"},
	{"password/flag-eq", "pg_dump --password=hunter2", "pg_dump --password=[secret:password]"},
	{"password/flag-quoted", `tool --db-password "two words" --user x`, `tool --db-password "[secret:password]" --user x`},
	{"password/keytool", "keytool -list -keystore ks.jks -storepass changeit2", "keytool -list -keystore ks.jks -storepass [secret:password]"},
	{"password/env", "PASSWORD=hunter2 ./run.sh", "PASSWORD=[secret:password] ./run.sh"},
	{"password/export", "export PGPASSWORD='hunter2'", "export PGPASSWORD='[secret:password]'"},
	{"password/mysql-pwd", "MYSQL_PWD=hunter2 mysql", "MYSQL_PWD=[secret:password] mysql"},
	{"password/db-pass", "DB_PASS=hunter2", "DB_PASS=[secret:password]"},
	{"password/json", `{"username": "admin", "password": "hunter2"}`, `{"username": "admin", "password": "[secret:password]"}`},
	{"password/json-in-string", `"{\"password\": \"hunter2\"}"`, `"{\"password\": \"[secret:password]\"}"`},
	{"password/yaml", "db:\n  password: hunter2\n", "db:\n  password: [secret:password]\n"},
	{"password/yaml-escaped", `"db:\n  password: hunter2\n"`, `"db:\n  password: [secret:password]\n"`},
	{"password/mysql-next-line", "mysql -u root\nmkdir -pdir", ""},
	{"password/mysql-other-command", "cd mysql-data && mkdir -pv x; ls mysql | xargs -pv echo", ""},
	{"password/mysql-pipe", "zcat dump.gz | docker exec -i db mysql -uroot -phunter2 app", "zcat dump.gz | docker exec -i db mysql -uroot -p[secret:password] app"},
	{"password/mysql-escaped-next-line", `"mysql -u root\nmkdir -pdir"`, ""},
	{"password/compose", "    environment:\n      - POSTGRES_PASSWORD=hunter2\n", "    environment:\n      - POSTGRES_PASSWORD=[secret:password]\n"},
	{"password/query", "GET /login?user=bob&password=hunter2&next=/", "GET /login?user=bob&password=[secret:password]&next=/"},
	{"password/go", `password := "hunter2"`, `password := "[secret:password]"`},
	{"password/python", `connect(host="db", password="hunter2")`, `connect(host="db", password="[secret:password]")`},
	{"password/mysql-p", "mysql -u root -phunter2 app", "mysql -u root -p[secret:password] app"},
	{"password/sshpass", "sshpass -p hunter2 ssh deploy@host", "sshpass -p [secret:password] ssh deploy@host"},
	{"password/sshpass-ssh-port", "sshpass -p hunter2 ssh -p 2222 deploy@host", "sshpass -p [secret:password] ssh -p 2222 deploy@host"},
	{"password/curl-u", "curl -u admin:hunter2 https://ci.internal/api", "curl -u admin:[secret:password] https://ci.internal/api"},
	{"password/openssl", "openssl pkcs12 -in a.p12 -passin pass:hunter2 -nodes", "openssl pkcs12 -in a.p12 -passin pass:[secret:password] -nodes"},
	{"password/prose", "Enter your password: \nThe password is stored in the vault. Set PASSWORD in .env.", ""},
	{"password/yaml-prose", "Password: use the admin one\n", ""},
	{"password/code", "f(password=password)\npassword = getpass()\nauth(password=self.password)\npassword = pw\n", ""},
	{"password/env-ref", "PASSWORD=$DB_PASSWORD PGPASSWORD=${PG} --password \"$PW\" --password=<password>", ""},
	{"password/mysql-prompt", "mysql -u root -p mydb; mkdir -p /tmp/x; ssh -p 2222 host", ""},
	{"password/docker-u", "docker run -u 1000:1000 img", ""},
	{"password/pwd", "PWD=/srv/app OLDPWD=/srv", ""},
	{"password/compare", `if password == "x" { }`, ""},
	{"password/utf8", "PASSWORD=pässwörd€ next", "PASSWORD=[secret:password] next"},

	// generic-secret
	{"generic/env", "GITHUB_TOKEN=" + fakeToken, "GITHUB_TOKEN=[secret:generic-secret]"},
	{"generic/header", "X-Api-Key: " + fakeToken + "\n", "X-Api-Key: [secret:generic-secret]\n"},
	{"generic/json", `{"client_secret": "` + fakeToken + `"}`, `{"client_secret": "[secret:generic-secret]"}`},
	{"generic/flag", "deploy --api-key " + fakeToken, "deploy --api-key [secret:generic-secret]"},
	{"generic/known-kind", "OPENAI_API_KEY=" + fakeOpenAI, "OPENAI_API_KEY=[secret:openai-key]"},
	{"generic/not-random", "MAX_TOKENS=4096 token_type=bearer SECRET_NAME=prod-db TOKEN=abc api_key=api_key", ""},
	{"generic/word", `{"token": "not-a-secret-just-words"}`, ""},
	{"generic/gcp-key-id", `{"type": "service_account", "private_key_id": "` + fakeGCPKeyID + `",`, `{"type": "service_account", "private_key_id": "[secret:generic-secret]",`},
	{"generic/ids", "user_id=12345 pid=4242 uuid=123e4567-e89b-12d3-a456-426614174000", ""},

	// More shapes of known kinds
	{"openai/openrouter", "OPENROUTER_API_KEY=" + fakeOpenRouter, "OPENROUTER_API_KEY=[secret:openai-key]"},
	{"openai/hex", "key " + fakeDeepSeek + " set", "key [secret:openai-key] set"},
	{"openai/hex-words", "sk-" + "0123456789abcdef0123456789abcdef-and-more and sk-" + strings.Repeat("ab12", 9), ""},
	{"aws-secret/configure", "aws configure set aws_secret_access_key " + fakeAWSSecret, "aws configure set aws_secret_access_key [secret:aws-secret]"},
	{"aws/session-token", "aws configure set aws_session_token " + fake(65, 200, b64), "aws configure set aws_session_token [secret:generic-secret]"},
	{"aws/prose", "Set aws_secret_access_key in ~/.aws/credentials, or aws_session_token for STS.", ""},
	{"url/redis-empty-user", "REDIS_URL=redis://:Xk9pLm2Qw7@cache:6379/0", "REDIS_URL=redis://:[secret:url-password]@cache:6379/0"},
	{"password/redis-cli", "redis-cli -h cache -a Xk9pLm2Qw7 ping", "redis-cli -h cache -a [secret:password] ping"},
	{"password/rediscli-auth", "REDISCLI_AUTH=Xk9pLm2Qw7 redis-cli ping", "REDISCLI_AUTH=[secret:password] redis-cli ping"},
	{"password/docker-login", "docker login -u bot -p Xk9pLm2Qw7 ghcr.io", "docker login -u bot -p [secret:password] ghcr.io"},
	{"password/docker-ports", "docker run -p 8080:80 img; ssh -p 2222 -l login host; docker login -p 5000", ""},
	{"password/mongo", "mongosh -u admin -p Xk9pLm2Qw7 mongodb://db", "mongosh -u admin -p [secret:password] mongodb://db"},
	{"password/ldap", "ldapsearch -x -D cn=admin -w Xk9pLm2Qw7 -b dc=x", "ldapsearch -x -D cn=admin -w [secret:password] -b dc=x"},
	{"password/mysql-quoted", "mysql -u root -p'hunter2xyz' -e 'select 1'", "mysql -u root -p'[secret:password]' -e 'select 1'"},
	{"password/mysql-dquoted", `mysql -h db -u root -p"Xk9p Lm2" app`, `mysql -h db -u root -p"[secret:password]" app`},
	{"password/curl-cluster", "curl -sSfu admin:Xk9pLm2Qw7 https://ci.internal", "curl -sSfu admin:[secret:password] https://ci.internal"},
	{"password/curl-user-eq", "curl --user=admin:Xk9pLm2Qw7 https://ci.internal", "curl --user=admin:[secret:password] https://ci.internal"},
	{"password/curl-other", "curl -sSL https://x | tar -xzu; ls -u a:b", ""},
	{"pem/json-double-escaped-cut", `"{\"private_key\": \"-----BEGIN PRIVATE KEY-----\\n` + strings.ReplaceAll(fakePEM[:300], "\n", `\\n`) + `\n`,
		`"{\"private_key\": \"[secret:private-key]\n`},

	// npm-token
	{"npm", "//registry.npmjs.org/:_authToken=" + fakeNPM, "//registry.npmjs.org/:_authToken=[secret:npm-token]"},
	{"npm/bare", "token " + fakeNPM + " ok", "token [secret:npm-token] ok"},
	{"npm/words", "npm_config_cache npm_" + fake(66, 20, alnum), ""},

	// pypi-token
	{"pypi", "twine upload -u __token__ -p " + fakePyPI + " dist/*", "twine upload -u __token__ -p [secret:pypi-token] dist/*"},

	// sendgrid-key
	{"sendgrid", "SENDGRID_API_KEY=" + fakeSendGrid, "SENDGRID_API_KEY=[secret:sendgrid-key]"},
	{"sendgrid/words", "SG.1 and SG.abc.def and SG.Storage.Group", ""},

	// twilio-key
	{"twilio", "TWILIO_ACCOUNT_SID=" + fakeTwilioAC + " TWILIO_API_KEY=" + fakeTwilioSK + " TWILIO_AUTH_TOKEN=" + fakeTwilioAuth,
		"TWILIO_ACCOUNT_SID=[secret:twilio-key] TWILIO_API_KEY=[secret:twilio-key] TWILIO_AUTH_TOKEN=[secret:generic-secret]"},
	{"twilio/curl", "curl -u " + fakeTwilioAC + ":" + fakeTwilioAuth + " https://api.twilio.com", "curl -u [secret:twilio-key]:[secret:password] https://api.twilio.com"},
	{"twilio/short", "AC" + fake(67, 31, hexLow) + " SK" + fake(68, 33, hexLow) + " ACCOUNT", ""},

	// azure-key and signature
	{"azure/storage", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + fakeAzureKey + ";EndpointSuffix=core.windows.net",
		"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=[secret:azure-key];EndpointSuffix=core.windows.net"},
	{"azure/service-bus", "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=" + fake(69, 43, b64) + "=",
		"Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=[secret:azure-key]"},
	{"signature/sas", "https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-01-01T00:00:00Z&spr=https&sig=" + fakeSAS,
		"https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-01-01T00:00:00Z&spr=https&sig=[secret:signature]"},
	{"signature/presigned", "https://b.s3.amazonaws.com/k?X-Amz-Credential=" + fakeAWSKey + "%2F20260101%2Fus-east-1%2Fs3&X-Amz-Signature=" + fake(70, 64, hexLow),
		"https://b.s3.amazonaws.com/k?X-Amz-Credential=[secret:aws-access-key]%2F20260101%2Fus-east-1%2Fs3&X-Amz-Signature=[secret:signature]"},
	{"signature/not", "sig=none; x.sig=" + fake(71, 40, alnum) + " signature=sha256", ""},

	// basic-auth
	{"basic/docker", `{"auths": {"ghcr.io": {"auth": "` + fakeDockerAuth + `"}}}`, `{"auths": {"ghcr.io": {"auth": "[secret:basic-auth]"}}}`},
	{"basic/header", "curl -H 'Authorization: Basic " + fakeDockerAuth + "' https://x", "curl -H 'Authorization: Basic [secret:basic-auth]' https://x"},
	{"basic/not", "Basic auth is simple. WWW-Authenticate: Basic realm=x; Basic " + base64.StdEncoding.EncodeToString([]byte("no colon here")), ""},

	// slack-webhook, discord-webhook, discord-token
	{"slack-webhook", "curl -X POST https://hooks.slack.com/services/" + fakeSlackHook + " -d @msg.json", "curl -X POST https://hooks.slack.com/services/[secret:slack-webhook] -d @msg.json"},
	{"discord-webhook", "WEBHOOK=https://discord.com/api/webhooks/" + fakeDiscordHook, "WEBHOOK=https://discord.com/api/webhooks/[secret:discord-webhook]"},
	{"discord-token", "client.run('" + fakeDiscord + "')", "client.run('[secret:discord-token]')"},
	{"discord/not", "MTIz.abc.def and NTFS.volume.label and https://discord.com/invite/abc", ""},

	// age-key and api-token
	{"age", "# public key: age1x\n" + fakeAge, "# public key: age1x\n[secret:age-key]"},
	{"api-token/digitalocean", "doctl auth init -t " + fakeDigitalOcn, "doctl auth init -t [secret:api-token]"},
	{"api-token/google-oauth", "Authorization: Bearer " + fakeGoogleOAuth, "Authorization: Bearer [secret:api-token]"},
	{"api-token/words", "key-value store, dapi calls, hvs. and dp.pt. and ya29 and pul-request", ""},

	// Cut short: what runs into a cut is masked however short it is.
	{"cut/anthropic", "key " + fakeAnthropic[:19] + "…", "key [secret:anthropic-key]…"},
	{"cut/openai", "OPENAI_API_KEY=" + fakeOpenAIProj[:11] + "…", "OPENAI_API_KEY=[secret:openai-key]…"},
	{"cut/github", "push with " + fakeGitHub[:8] + "… failed", "push with [secret:github-token]… failed"},
	{"cut/placeholders", "sk-… and ghp_… and sk-proj-… and sk-ant-api03-… and PASSWORD=… and sk-xxxx…", ""},
	{"cut/password", "mysql --password hunt…", "mysql --password [secret:password]…"},
	{"cut/quoted", `tool --db-password "two wo…`, `tool --db-password "[secret:password]…`},
	{"cut/json", `{"password": "hunter2x…`, `{"password": "[secret:password]…`},
	{"cut/url", "postgres://app:hunter2x…", "postgres://app:[secret:url-password]…"},
	{"cut/url-port", "see http://localhost:80… and http://[::1]:8…", ""},
	{"cut/bearer", "Authorization: Bearer abc1…", "Authorization: Bearer [secret:bearer-token]…"},
	{"cut/jwt", fakeJWT[:strings.IndexByte(fakeJWT, '.')+12] + "…", "[secret:jwt]…"},
	{"cut/pem", "-----BEGIN RSA PRIVATE KEY-----\nMIIEow…", "[secret:private-key]…"},
	{"cut/generic", "API_KEY=Xk9p…", "API_KEY=[secret:generic-secret]…"},
	{"cut/omitted", "export TOKEN=" + fakeGitHub[:12] + "\n[… 4096 bytes omitted …]\nrest", "export TOKEN=[secret:github-token]\n[… 4096 bytes omitted …]\nrest"},
	{"cut/prose", "Wait for it… then password… and --password…", ""},

	// false positives shared by all kinds
	{"fp/commit", "commit 3f2a9c1e5b7d4a6f8e0c2b4d6f8a0c2e4b6d8f0a\nAuthor: A <a@b>", ""},
	{"fp/uuid", "session 123e4567-e89b-12d3-a456-426614174000 started", ""},
	{"fp/base64", "data: " + base64.StdEncoding.EncodeToString([]byte(fake(35, 300, alnum+" .,"))), ""},
	{"fp/sha256", "sha256:" + hex.EncodeToString([]byte(fake(36, 32, alnum))), ""},
	{"fp/go", "x := map[string]string{\"a\": \"b\"}\nfor k, v := range m {\n\tfmt.Println(k, v)\n}", ""},
	{"fp/test-output", "--- FAIL: TestLogin (0.00s)\n    login_test.go:42: got token \"\", want \"abc\"\nFAIL", ""},
	{"fp/masked", "[secret:github-token:3f2a] and PASSWORD=[secret:password:1b2c]", ""},
	{"fp/empty", "", ""},
}

// hostCases hold addresses and user names: masked with Options.Hosts,
// unchanged without.
var hostCases = []tcase{
	{"ipv4", "ssh deploy@10.0.4.17 -p 22", "ssh deploy@[host] -p 22"},
	{"ipv4/port", "dial tcp 192.168.1.20:5432: connection refused", "dial tcp [host]:5432: connection refused"},
	{"ipv4/sentence", "It listens on 203.0.113.9.", "It listens on [host]."},
	{"ipv4/kept", "127.0.0.1:8080 0.0.0.0 255.255.255.255 1.2.3 1.2.3.4.5 v1.2.3.4 999.1.1.1 10.0.0.1234", ""},
	{"ipv6", "ping 2001:db8::8a2e:370:7334 ok", "ping [host] ok"},
	{"ipv6/bracketed", "http://[fe80::1]:8080/ and fe80::1%eth0", "http://[[host]]:8080/ and [host]%eth0"},
	{"ipv6/mapped", "from ::ffff:10.1.2.3", "from [host]"},
	{"ipv6/kept", "::1 :: 12:34:56 std::vector abc::def 00:1a:2b:3c:4d:5e", ""},
	{"home", "cd /home/alice/src && ls ~/", "cd /home/[user]/src && ls ~/"},
	{"home/end", "owner: /home/bob.", "owner: /home/[user]."},
	{"users/mac", "/Users/carol/Library/Caches", "/Users/[user]/Library/Caches"},
	{"users/windows", `C:\Users\dave\AppData\Local`, `C:\Users\[user]\AppData\Local`},
	{"users/windows-json", `"C:\\Users\\erin\\go"`, `"C:\\Users\\[user]\\go"`},
	{"users/windows-slash", "C:/Users/frank/x", "C:/Users/[user]/x"},
	{"users/wsl", "/mnt/c/Users/gina/x", "/mnt/c/Users/[user]/x"},
	{"home/kept", "https://example.com/home/page /var/home/x /Users/Shared/x /home/", ""},
}

func TestString(t *testing.T) {
	for _, hosts := range []bool{false, true} {
		r := newTest(hosts)
		for _, tc := range secretCases {
			t.Run(fmt.Sprintf("hosts=%v/%s", hosts, tc.name), func(t *testing.T) {
				check(t, r, tc)
			})
		}
		for _, tc := range hostCases {
			t.Run(fmt.Sprintf("hosts=%v/%s", hosts, tc.name), func(t *testing.T) {
				if !hosts {
					tc.want = ""
				}
				check(t, r, tc)
			})
		}
	}
}

func check(t *testing.T, r *Redactor, tc tcase) {
	t.Helper()
	got := r.String(tc.in)
	if tc.want == "" && got != tc.in {
		t.Errorf("String(%q)\n got %q\nwant it unchanged", tc.in, got)
	}
	if tc.want != "" && unhash(got) != tc.want {
		t.Errorf("String(%q)\n got %q\nwant %q", tc.in, unhash(got), tc.want)
	}
	if again := r.String(got); again != got {
		t.Errorf("String is not idempotent on %q:\nonce  %q\ntwice %q", tc.in, got, again)
	}
}

// TestEachKind checks that the table has a positive case for each kind.
func TestEachKind(t *testing.T) {
	seen := map[string]bool{}
	r := newTest(true)
	for _, tc := range append(secretCases[:len(secretCases):len(secretCases)], hostCases...) {
		for _, m := range masks.FindAllStringSubmatch(r.String(tc.in), -1) {
			seen[strings.TrimPrefix(m[1], "secret:")] = true
		}
	}
	for _, name := range kinds {
		if !seen[name] {
			t.Errorf("no test case finds kind %q", name)
		}
	}
}

// TestLongValue checks that a value longer than the rules look is cut at a
// character boundary: the output stays valid UTF-8.
func TestLongValue(t *testing.T) {
	in := "PASSWORD=abc" + strings.Repeat("é1x", maxValue/2) + " end"
	if utf8.RuneStart(in[len("PASSWORD=")+maxValue]) {
		t.Fatal("the test input must put the cut inside a character")
	}
	got := newTest(false).String(in)
	if !strings.HasPrefix(got, "PASSWORD=[secret:password:") || !utf8.ValidString(got) {
		t.Errorf("String(long password) = %.60q…, want a mask and valid UTF-8", got)
	}
}

// TestDoc checks that the package comment describes every kind.
func TestDoc(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range kinds {
		if !strings.Contains(string(doc), "//   - "+name+": ") {
			t.Errorf("doc.go does not describe kind %q", name)
		}
	}
}

func TestKinds(t *testing.T) {
	valid := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	names := Kinds()
	if len(names) != int(kindHost) {
		t.Errorf("Kinds() has %d names, want %d", len(names), kindHost)
	}
	seen := map[string]bool{}
	for k, name := range kinds {
		if !valid.MatchString(name) || seen[name] {
			t.Errorf("kind %d: name %q is not unique lower-kebab", k, name)
		}
		seen[name] = true
	}
}

// TestHash checks the hash: HMAC-SHA256 under the key, the same for the
// same value wherever and however it is found, and different for
// different values.
func TestHash(t *testing.T) {
	r := newTest(false)
	mac := hmac.New(sha256.New, []byte("retrace test key"))
	mac.Write([]byte(fakeGitHub))
	want := "[secret:github-token:" + hex.EncodeToString(mac.Sum(nil))[:4] + "]"
	if got := r.String(fakeGitHub); got != want {
		t.Errorf("String(github token) = %q, want %q", got, want)
	}

	same := r.String("GH_TOKEN=" + fakeGitHub + "\ngit push https://x:" + fakeGitHub + "@github.com/o/r\n")
	if got := masks.FindAllString(same, -1); len(got) != 2 || got[0] != want || got[1] != want {
		t.Errorf("one token twice: masks %q, want two of %q", got, want)
	}
	if got := r.String("later: " + fakeGitHub); got != "later: "+want {
		t.Errorf("second call: %q, want the same mask %q", got, want)
	}
	// One password, found by two rules, reads the same.
	a, b := masks.FindString(r.String("PASSWORD=hunter2")), masks.FindString(r.String("--password hunter2"))
	if a[len(a)-5:] != b[len(b)-5:] {
		t.Errorf("same password, masks %q and %q: want the same hash", a, b)
	}

	seen := map[string]string{}
	for _, secret := range []string{fakeGitHub, fakeGitHub2, fakeOpenAI, fakeAWSKey, fakeAWSKey2, fakeGoogle, fakeHF, fakeStripe} {
		m := r.String(secret)
		h := m[len(m)-5 : len(m)-1]
		if other, ok := seen[h]; ok {
			t.Errorf("%q and %q share hash %s", other, secret, h)
		}
		seen[h] = secret
	}

	// The default key is random: two Redactors disagree on some of eight
	// values (all eight agreeing by chance has odds of 2^-128).
	r1, r2 := New(Options{}), New(Options{})
	differ := false
	for _, secret := range []string{fakeGitHub, fakeGitHub2, fakeOpenAI, fakeAWSKey, fakeAWSKey2, fakeGoogle, fakeHF, fakeStripe} {
		differ = differ || r1.String(secret) != r2.String(secret)
	}
	if !differ {
		t.Error("two Redactors with no key gave the same masks")
	}
}

func TestNil(t *testing.T) {
	var r *Redactor
	in := "PASSWORD=hunter2 " + fakeGitHub
	if got := r.String(in); got != in {
		t.Errorf("nil Redactor: String(%q) = %q, want it unchanged", in, got)
	}
}

// TestNoCopy checks that text with nothing to mask comes back as is,
// without allocating.
func TestNoCopy(t *testing.T) {
	r := newTest(true)
	in := strings.Repeat(plainText, 4)
	if got := r.String(in); unsafe.StringData(got) != unsafe.StringData(in) {
		t.Error("String copied text that has nothing to mask")
	}
	if n := testing.AllocsPerRun(10, func() { r.String(in) }); n != 0 {
		t.Errorf("String allocated %v times on text with nothing to mask, want 0", n)
	}
}

// TestConcurrent runs one Redactor from many goroutines; run with -race.
func TestConcurrent(t *testing.T) {
	r := newTest(true)
	in := secretText(1)
	want := r.String(in)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if got := r.String(in); got != want {
					t.Error("concurrent String gave a different result")
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestKeyCopied checks that New copies Options.Key.
func TestKeyCopied(t *testing.T) {
	key := []byte("retrace test key")
	r := New(Options{Key: key})
	want := r.String(fakeGitHub)
	key[0] ^= 0xff
	if got := r.String(fakeGitHub); got != want {
		t.Errorf("changing Options.Key after New changed the mask: %q, then %q", want, got)
	}
}

// plainText is ordinary tool output with nothing to mask, whatever the
// options: build and test logs, listings, JSON, code, a diff.
const plainText = `$ go test ./...
ok  	github.com/acme/shop/internal/cart	0.412s
--- FAIL: TestCheckout (0.03s)
    checkout_test.go:88: total = 41.99, want 42.00
    checkout_test.go:91: status: got "pending", want "paid"
FAIL	github.com/acme/shop/internal/checkout	0.211s
$ git log --oneline -3
9c1e5b7 Fix rounding in cart totals (#412)
4d6f8a0 Add retry to payment client
e4b6d8f Bump golang.org/x/net to v0.38.0
$ ls -la src/
total 48
drwxr-xr-x  6 dev staff  192 Mar  3 10:14 .
-rw-r--r--  1 dev staff 1289 Mar  3 10:14 main.go
-rw-r--r--  1 dev staff 4410 Mar  3 10:12 server.go
{"level":"info","ts":1741000000.123,"caller":"server/server.go:112","msg":"listening","addr":":8080","workers":8}
{"level":"error","ts":1741000001.456,"msg":"request failed","path":"/api/v1/orders","status":502,"latency_ms":1203}
npm WARN deprecated inflight@1.0.6: This module is not supported, and leaks memory.
added 1289 packages, and audited 1290 packages in 14s
Traceback (most recent call last):
  File "app/models.py", line 214, in save
    self.validate(strict=True)
ValueError: field 'email' must not be empty
diff --git a/server.go b/server.go
index 3f2a9c1..e4b6d8f 100644
--- a/server.go
+++ b/server.go
@@ -110,7 +110,8 @@ func (s *Server) Run(ctx context.Context) error {
-	srv := &http.Server{Addr: s.addr}
+	srv := &http.Server{Addr: s.addr, ReadHeaderTimeout: 5 * time.Second}
 	for i := 0; i < s.workers; i++ {
 		go s.worker(ctx, i)
 	}
Version 1.2.3 of the build, sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
session 123e4567-e89b-12d3-a456-426614174000: 12 steps, 3 failures, 00:04:31 elapsed
`

// secretText returns about 64 KB of plainText with n rounds of a dozen
// secrets of different kinds spread through it.
func secretText(n int) string {
	secrets := []string{
		"export GITHUB_TOKEN=" + fakeGitHub,
		"Authorization: Bearer " + fakeJWT,
		"OPENAI_API_KEY=" + fakeOpenAI,
		"aws_secret_access_key = " + fakeAWSSecret,
		"AWS_ACCESS_KEY_ID=" + fakeAWSKey,
		"postgres://app:s3cr3t@db.internal:5432/prod",
		"mysql -u root --password hunter2",
		"-----BEGIN RSA PRIVATE KEY-----\n" + fakePEM + "\n-----END RSA PRIVATE KEY-----",
		"curl -H 'x-api-key: " + fakeAnthropic + "'",
		"ssh deploy@10.0.4.17 and /home/alice/src",
		"SLACK_BOT_TOKEN=" + fakeSlack,
		"stripe.api_key = '" + fakeStripe + "'",
	}
	var b strings.Builder
	for range n {
		for _, s := range secrets {
			b.WriteString(plainText[:len(plainText)/2])
			b.WriteString(s + "\n")
			b.WriteString(plainText[len(plainText)/2:])
		}
	}
	return b.String()
}

// BenchmarkString measures String on 1 MB of ordinary tool output with
// nothing to mask, and on the same amount of text with a few secrets, with
// and without Options.Hosts. Two baselines read the plain text once:
// memscan searches it for a byte it lacks (vectorized), bytewise looks at
// each byte in a Go loop, as String's scan does.
func BenchmarkString(b *testing.B) {
	plain := strings.Repeat(plainText, (1<<20)/len(plainText)+1)[:1<<20]
	plain = plain[:strings.LastIndexByte(plain, '\n')+1]
	secrets := secretText(1)
	secrets = strings.Repeat(secrets, (1<<20)/len(secrets)+1)
	for _, bc := range []struct {
		name  string
		text  string
		hosts bool
	}{
		{"plain", plain, false},
		{"plain-hosts", plain, true},
		{"secrets", secrets, false},
		{"secrets-hosts", secrets, true},
	} {
		r := newTest(bc.hosts)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			for b.Loop() {
				r.String(bc.text)
			}
		})
	}
	b.Run("memscan", func(b *testing.B) {
		b.SetBytes(int64(len(plain)))
		for b.Loop() {
			if strings.IndexByte(plain, 0) >= 0 {
				b.Fatal("NUL in plain text")
			}
		}
	})
	b.Run("bytewise", func(b *testing.B) {
		b.SetBytes(int64(len(plain)))
		for b.Loop() {
			n := 0
			for i := 0; i < len(plain); i++ {
				if plain[i] >= utf8.RuneSelf {
					n++
				}
			}
			if n < 0 {
				b.Fatal("unreachable")
			}
		}
	})
}

// BenchmarkAdversarial measures String on 1 MB inputs built to make rules
// look far ahead at every anchor. Each must stay within a small factor of
// plain text.
func BenchmarkAdversarial(b *testing.B) {
	for _, bc := range []struct{ name, unit string }{
		{"begin", "-----BEGIN PRIVATE KEY-----"},
		{"password", "password="},
		{"quoted", `"password": "`},
		{"mysql", "mysql -pX "},
		{"bearer", "Bearer "},
		{"jwt", "eyJhbGciOiJIUzI1NiJ9.eyJ"},
		{"url", "a://u:p"},
		{"ipv6", "1:2:3:4:5:6:7:"},
		{"ipv4", "1.2.3."},
		{"home", "/home/"},
		{"colon", ":"},
		{"equals", "="},
		{"basic", "Basic "},
		{"cut", "a…"},
		{"quoted-cut", `"password": "x…`},
		{"aws", "aws_secret_access_key "},
		{"discord", "MTIzNDU2Nzg5MDEyMzQ1Njc4."},
		{"webhook", "https://hooks.slack.com/services/"},
		{"prefixed", "pypi-AgEIcHlwaS5vcmc"},
	} {
		text := strings.Repeat(bc.unit, (1<<20)/len(bc.unit))
		r := newTest(true)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				r.String(text)
			}
		})
	}
}

// BenchmarkAdversarialMemory measures String by a Redactor that remembers
// as many secrets as it can, sharing their first bytes, on 1 MB of text
// made of their starts.
func BenchmarkAdversarialMemory(b *testing.B) {
	r := newTest(false).Remembering()
	for n := range maxKnown {
		r.String(fmt.Sprintf("PASSWORD=pass%04dword%s", n, strings.Repeat("x1", 500)))
	}
	text := strings.Repeat("pass0001word"+strings.Repeat("x1", 499)+"…", (1<<20)/1010)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		r.String(text)
	}
}

// corpus is the team's folder of real public transcripts, outside the
// repository (see analyzer/corpus_test.go).
var corpus = filepath.Join("..", "..", "..", "shared", "corpus")

// BenchmarkCorpus measures String on each real transcript of the corpus,
// read whole, when the corpus is there.
func BenchmarkCorpus(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(corpus, "*", "*"))
	if len(files) == 0 {
		b.Skipf("no corpus at %s", corpus)
	}
	var all strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		all.Write(data)
	}
	text := all.String()
	for _, hosts := range []bool{false, true} {
		r := newTest(hosts)
		b.Run(fmt.Sprintf("hosts=%v", hosts), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				r.String(text)
			}
		})
	}
}

// TestRemember checks that a Redactor that remembers masks a secret
// wherever it meets it again, with the mask it had where it was found,
// and that Known masks what came before.
func TestRemember(t *testing.T) {
	base := newTest(false)
	r := base.Remembering()
	early := "echo 'connecting with hunter2xyz'"
	if got := r.String(early); got != early {
		t.Fatalf("String(%q) = %q before anything was learned", early, got)
	}
	assigned := r.String("export DB_PASSWORD=hunter2xyz PGPASSWORD=postgres")
	mask := masks.FindString(assigned)
	if unhash(assigned) != "export DB_PASSWORD=[secret:password] PGPASSWORD=[secret:password]" {
		t.Fatalf("String(assignment) = %q", assigned)
	}
	for _, tc := range []struct{ in, want string }{
		{"Traceback: FATAL: password authentication failed (hunter2xyz)", "Traceback: FATAL: password authentication failed (" + mask + ")"},
		{"-    --pw hunter2xyz\n+    --password hunter2xyz", "-    --pw " + mask + "\n+    --password " + mask},
		{"psql -U postgres hunter2xyz1 xhunter2xyz", ""},                                                                                                     // a word only; postgres is not remembered
		{"cut: hunter2x…", "cut: " + mask + "…"},                                                                                                             // its start at a cut gets its mask
		{"[secret:password:1a2b] and " + mask, ""},                                                                                                           // masks are left alone
		{"PASSWORD=abc12 then abc12 and PASSWORD=letters then letters", "PASSWORD=[secret:password] then abc12 and PASSWORD=[secret:password] then letters"}, // too short; a word
	} {
		got := r.String(tc.in)
		want := tc.want
		if want == "" {
			want = tc.in
		}
		if strings.Contains(want, "[secret:password]") {
			got = unhash(got)
		}
		if got != want {
			t.Errorf("String(%q)\n got %q\nwant %q", tc.in, got, want)
		}
		if again := r.String(got); again != got && !strings.Contains(want, "[secret:password]") {
			t.Errorf("String is not idempotent on %q: %q", got, again)
		}
	}
	if got, want := r.Known(early), "echo 'connecting with "+mask+"'"; got != want {
		t.Errorf("Known(%q) = %q, want %q", early, got, want)
	}
	if got := base.Known(early); got != early {
		t.Errorf("a Redactor that does not remember: Known(%q) = %q", early, got)
	}

	// Learn passes what one Redactor remembers to another.
	run := base.Remembering()
	if run.Remembers() || run.Known(early) != early {
		t.Fatal("a new memory is not empty")
	}
	run.Learn(r)
	if !run.Remembers() || run.Known(early) != r.Known(early) {
		t.Errorf("after Learn: Known(%q) = %q, want %q", early, run.Known(early), r.Known(early))
	}
	// Study learns as String does, masking nothing.
	studied := base.Remembering()
	studied.Study("export DB_PASSWORD=hunter2xyz PGPASSWORD=postgres")
	if got, want := studied.Known(early), r.Known(early); got != want {
		t.Errorf("after Study: Known(%q) = %q, want %q", early, got, want)
	}
	base.Study("export DB_PASSWORD=hunter2xyz")
	if base.Remembers() {
		t.Error("a Redactor that does not remember learned by Study")
	}

	var none *Redactor
	if none.Remembering() != nil || none.Known(early) != early || none.Remembers() {
		t.Error("a nil Redactor remembers")
	}
	none.Learn(r)
	run.Learn(none)
	none.Study(early)
}

// TestRememberTokens checks that a token remembered is found where its
// rule does not find it: glued to other text, its kind kept.
func TestRememberTokens(t *testing.T) {
	r := newTest(false).Remembering()
	first := r.String("export GH_TOKEN=" + fakeGitHub)
	got := r.String("url: https://github.com/o/r?t=" + fakeGitHub + "…x and '" + fakeGitHub + "'")
	if strings.Contains(got, fakeGitHub) || masks.FindString(got) != masks.FindString(first) {
		t.Errorf("remembered token: %q, want the mask of %q", got, first)
	}
}

// TestRememberConcurrent learns and masks from many goroutines at once;
// run with -race.
func TestRememberConcurrent(t *testing.T) {
	run := newTest(false).Remembering()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			r := run.Remembering()
			for n := range 50 {
				pw := fmt.Sprintf("x%02d%d-pwXy", n, g)
				r.String("PASSWORD=" + pw)
				if got := r.String("echo " + pw); strings.Contains(got, pw) {
					t.Errorf("%q not masked: %q", pw, got)
					return
				}
				run.Learn(r)
				run.String("echo " + pw)
			}
		})
	}
	wg.Wait()
	for g := range 8 {
		if pw := fmt.Sprintf("x49%d-pwXy", g); strings.Contains(run.Known(pw), pw) {
			t.Errorf("%q not learned", pw)
		}
	}
}

// BenchmarkRemember measures String on 1 MB of text with secrets by a
// Redactor that remembers them, against one that does not.
func BenchmarkRemember(b *testing.B) {
	secrets := secretText(1)
	secrets = strings.Repeat(secrets, (1<<20)/len(secrets)+1)
	for _, remember := range []bool{false, true} {
		r := newTest(false)
		if remember {
			r = r.Remembering()
		}
		b.Run(fmt.Sprintf("remember=%v", remember), func(b *testing.B) {
			b.SetBytes(int64(len(secrets)))
			for b.Loop() {
				r.String(secrets)
			}
		})
	}
}
