package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// The planted-secret test: a hostile transcript holds secrets of every
// shape retrace masks, in every place a transcript can hold them (commands,
// outputs, the title, the assistant's text, call ids, the lines a long
// output is cut at, warnings, benchmark labels), and every output of every
// command must show none of them, nor a start of one.

// A plant is a made-up secret of one shape. What must never show is its
// body: the secret without its public prefix (sk-proj-, ghp_, a JWT's
// header), which says only what kind of secret it is.
type plant struct {
	name   string
	secret string
	public string // the start of secret that may show, as a mask's kind does
}

// body returns what of the plant must not show.
func (p plant) body() string { return p.secret[len(p.public):] }

// fakeOf returns n bytes of alphabet drawn by a xorshift generator seeded
// with seed: the shape of a key, none of its secrecy, and nothing a secret
// scanner would find in the source.
func fakeOf(seed uint32, n int, alphabet string) string {
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

const (
	fUpper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	fLower  = "abcdefghijklmnopqrstuvwxyz"
	fDigits = "0123456789"
	fAlnum  = fUpper + fLower + fDigits
	fB64URL = fAlnum + "-_"
	fB64    = fAlnum + "+/"
	fHex    = "0123456789abcdef"
	fPass   = fAlnum + "!#%^*-_+"
)

// pemBody lays base64 out in lines of 64.
func pemBody(b64 string) string {
	var lines []string
	for len(b64) > 64 {
		lines, b64 = append(lines, b64[:64]), b64[64:]
	}
	return strings.Join(append(lines, b64), "\n")
}

// planted returns the plants, by name.
func planted() map[string]plant {
	f := fakeOf
	jwtHeader := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	ps := []plant{
		{"anthropic", "sk-ant-" + "api03-" + f(1, 93, fB64URL) + "AA", "sk-ant-api03-"},
		{"openai-project", "sk-" + "proj-" + f(2, 74, fB64URL) + "T3Blbk" + "FJ" + f(3, 74, fB64URL), "sk-proj-"},
		{"openai-legacy", "sk-" + f(4, 48, fAlnum), "sk-"},
		{"deepseek", "sk-" + f(5, 32, fHex), "sk-"},
		{"openrouter", "sk-" + "or-v1-" + f(6, 64, fHex), "sk-or-v1-"},
		{"github", "gh" + "p_" + f(7, 36, fAlnum), "ghp_"},
		{"github-pat", "github" + "_pat_" + f(8, 22, fAlnum) + "_" + f(9, 59, fAlnum), "github_pat_"},
		{"gitlab", "gl" + "pat-" + f(10, 20, fB64URL), "glpat-"},
		{"slack", "xo" + "xb-" + f(11, 12, fDigits) + "-" + f(12, 13, fDigits) + "-" + f(13, 24, fAlnum), "xoxb-"},
		{"slack-webhook", "T" + f(14, 10, fUpper+fDigits) + "/B" + f(15, 10, fUpper+fDigits) + "/" + f(16, 24, fAlnum), ""},
		{"aws-key", "AK" + "IA" + f(17, 16, fUpper+"234567"), "AKIA"},
		{"aws-secret", f(18, 40, fB64), ""},
		{"google", "AI" + "za" + f(19, 35, fB64URL), "AIza"},
		{"google-oauth", "ya" + "29." + f(20, 120, fB64URL), "ya29."},
		{"huggingface", "h" + "f_" + f(21, 34, fUpper+fLower), "hf_"},
		{"stripe", "sk_" + "live_" + f(22, 24, fAlnum), "sk_live_"},
		{"jwt", jwtHeader + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"`+f(23, 12, fDigits)+`","name":"Fake Person"}`)) + "." + f(24, 43, fB64URL), jwtHeader + "."},
		{"bearer", f(25, 40, fAlnum), ""},
		{"url-password", f(26, 14, fPass), ""},
		{"redis-password", f(27, 14, fAlnum), ""},
		{"flag-password", f(28, 14, fAlnum), ""},
		{"known-password", f(29, 12, fAlnum), ""},
		{"mysql-password", f(30, 14, fAlnum), ""},
		{"curl-password", f(31, 14, fAlnum), ""},
		{"rsa-key", pemBody(f(32, 64*14, fB64)), ""},
		{"openssh-key", pemBody("b3BlbnNzaC1rZXktdjEAAAAA" + f(33, 64*8, fB64)), "b3BlbnNzaC1rZXktdjEAAAAA"},
		{"gcp-key", pemBody(f(34, 64*10, fB64)), ""},
		{"gcp-key-id", f(35, 40, fHex), ""},
		{"npm", "np" + "m_" + f(36, 36, fAlnum), "npm_"},
		{"pypi", "pypi-" + "AgEIcHlwaS5vcmc" + f(37, 150, fB64URL), "pypi-AgEIcHlwaS5vcmc"},
		{"azure-key", f(38, 86, fB64) + "==", ""},
		{"azure-sas", f(39, 30, fAlnum) + "%2B" + f(40, 8, fAlnum) + "%3D", ""},
		{"docker-auth", base64.StdEncoding.EncodeToString([]byte("deploy:" + f(41, 20, fAlnum))), ""},
		{"basic-auth", base64.StdEncoding.EncodeToString([]byte("ci:" + f(42, 20, fAlnum))), ""},
		{"discord", base64.RawURLEncoding.EncodeToString([]byte("1"+f(43, 17, fDigits))) + "." + f(44, 6, fB64URL) + "." + f(45, 38, fB64URL), ""},
		{"discord-webhook", f(46, 18, fDigits) + "/" + f(47, 68, fB64URL), ""},
		{"twilio-key", "S" + "K" + f(48, 32, fHex), "SK"},
		{"twilio-account", "A" + "C" + f(49, 32, fHex), "AC"},
		{"twilio-token", f(50, 32, fHex), ""},
		{"sendgrid", "S" + "G." + f(51, 22, fB64URL) + "." + f(52, 43, fB64URL), "SG."},
		{"age", "AGE-" + "SECRET-KEY-1" + f(53, 58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"), "AGE-SECRET-KEY-1"},
		{"docker-password", f(54, 14, fAlnum), ""},
		{"redis-cli-password", f(55, 14, fAlnum), ""},
		{"digitalocean", "do" + "p_v1_" + f(56, 64, fHex), "dop_v1_"},
		{"title-cut", "sk-ant-" + "api03-" + f(57, 93, fB64URL) + "AA", "sk-ant-api03-"},
		{"text-cut", "gh" + "p_" + f(58, 36, fAlnum), "ghp_"},
		{"straddle", "sk-" + "proj-" + f(59, 150, fB64URL), "sk-proj-"},
		{"straddle-word", f(66, 14, fAlnum), ""},
		{"escape-split", "sk-ant-" + "api03-" + f(67, 93, fB64URL) + "AA", "sk-ant-api03-"},
		{"bench-token", f(60, 40, fAlnum), ""},
		{"call-id", "gh" + "r_" + f(61, 36, fAlnum), "ghr_"},
		{"orphan-id", "gh" + "o_" + f(62, 36, fAlnum), "gho_"},
		{"codex-openai", "sk-" + "proj-" + f(63, 120, fB64URL), "sk-proj-"},
		{"codex-password", f(64, 14, fAlnum), ""},
		{"codex-github", "gh" + "s_" + f(65, 36, fAlnum), "ghs_"},
	}
	m := make(map[string]plant, len(ps))
	for _, p := range ps {
		m[p.name] = p
	}
	return m
}

// A claudeLog writes a Claude Code transcript record by record.
type claudeLog struct {
	t     *testing.T
	lines []string
	n     int
}

func (l *claudeLog) add(typ string, msg map[string]any) {
	l.n++
	rec := map[string]any{"parentUuid": nil, "isSidechain": false, "userType": "external", "cwd": "/srv/app",
		"sessionId": "7f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f", "version": "2.0.76", "type": typ,
		"uuid": fmt.Sprintf("u%d", l.n), "message": msg,
		"timestamp": time.Date(2026, 4, 1, 10, 0, l.n, 0, time.UTC).Format(time.RFC3339)}
	b, err := json.Marshal(rec)
	if err != nil {
		l.t.Fatal(err)
	}
	l.lines = append(l.lines, string(b))
}

// call writes an assistant message with text (if any) and a Bash call, and
// its result.
func (l *claudeLog) call(id, text, command, output string, failed bool) {
	var content []any
	if text != "" {
		content = append(content, map[string]any{"type": "text", "text": text})
	}
	content = append(content, map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": command}})
	l.add("assistant", map[string]any{"id": "msg_" + id, "role": "assistant", "model": "claude-x", "content": content})
	l.result(id, output, failed)
}

func (l *claudeLog) result(id, output string, failed bool) {
	l.add("user", map[string]any{"role": "user", "content": []any{map[string]any{
		"tool_use_id": id, "type": "tool_result", "content": output, "is_error": failed}}})
}

// writePlanted writes into dir a Claude Code transcript and a Codex exec
// log that hold every plant, and returns their paths.
func writePlanted(t *testing.T, dir string) []string {
	t.Helper()
	p := planted()
	s := func(name string) string { return p[name].secret }
	l := &claudeLog{t: t}
	// The title is the prompt's first line cut to 100 characters: the cut
	// falls inside the key.
	l.add("user", map[string]any{"role": "user", "content": "Please deploy the service to production in the eu-west region, key " + s("title-cut") + " and report back"})
	// A password seen before anything says it is one.
	l.call("toolu_e1", "", "cat notes.txt", "db notes: "+s("known-password")+" is the db one\nError: notes.txt is incomplete", true)

	fail := func(id, command string) {
		l.call(id, "", command, "Exit code 1\nError: refused: "+command, true)
	}
	fail("toolu_a1", "ANTHROPIC_API_KEY="+s("anthropic")+" ./ask.sh")
	fail("toolu_a2", "curl -H 'Authorization: Bearer "+s("openai-project")+"' https://api.openai.com/v1/models")
	fail("toolu_a3", "python -c \"import openai; openai.api_key = '"+s("openai-legacy")+"'\"")
	fail("toolu_a4", "echo "+s("deepseek")+" | deepseek login")
	fail("toolu_a5", "echo "+s("openrouter")+" > ~/.openrouter")
	fail("toolu_a6", "git push https://x-access-token:"+s("github")+"@github.com/o/r.git")
	fail("toolu_a7", "gh auth login --with-token <<< "+s("github-pat"))
	fail("toolu_a8", "glab auth login --token "+s("gitlab"))
	fail("toolu_a9", "SLACK_BOT_TOKEN="+s("slack")+" ./notify.sh")
	fail("toolu_b1", "curl -X POST -d @m.json https://hooks.slack.com/services/"+s("slack-webhook"))
	fail("toolu_b2", "AWS_ACCESS_KEY_ID="+s("aws-key")+" aws s3 ls")
	fail("toolu_b3", "aws configure set aws_secret_access_key "+s("aws-secret"))
	fail("toolu_b4", "curl 'https://maps.googleapis.com/maps/api/geocode/json?key="+s("google")+"'")
	fail("toolu_b5", "curl -H \"Authorization: Bearer "+s("google-oauth")+"\" https://www.googleapis.com/drive/v3/files")
	fail("toolu_b6", "huggingface-cli login --token "+s("huggingface"))
	fail("toolu_b7", "python -c \"import stripe; stripe.api_key = '"+s("stripe")+"'\"")
	fail("toolu_b8", "curl -H 'Authorization: Bearer "+s("jwt")+"' https://api.internal/me")
	fail("toolu_b9", "curl -H 'Authorization: Bearer "+s("bearer")+"' https://ci.internal/api")
	fail("toolu_c1", "psql postgres://app:"+s("url-password")+"@db.internal:5432/prod")
	fail("toolu_c2", "redis-cli -u redis://:"+s("redis-password")+"@cache.internal:6379/0 ping")
	fail("toolu_c3", "./deploy.sh --password "+s("flag-password")+" --env prod")
	fail("toolu_c4", "mysql -h db -u root -p'"+s("mysql-password")+"' app")
	fail("toolu_c5", "curl -sSfu admin:"+s("curl-password")+" https://ci.internal/api/json")
	fail("toolu_c6", "npm config set //registry.npmjs.org/:_authToken "+s("npm"))
	fail("toolu_c7", "twine upload -u __token__ -p "+s("pypi")+" dist/*")
	fail("toolu_c8", "az storage blob list --connection-string 'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey="+s("azure-key")+";EndpointSuffix=core.windows.net'")
	fail("toolu_c9", "azcopy copy x 'https://acct.blob.core.windows.net/c?sv=2022-11-02&ss=b&srt=o&sp=rw&se=2026-01-01T00:00:00Z&sig="+s("azure-sas")+"'")
	fail("toolu_d1", "curl -H 'Authorization: Basic "+s("basic-auth")+"' https://registry.internal/v2/")
	fail("toolu_d2", "python bot.py --discord '"+s("discord")+"'")
	fail("toolu_d3", "curl -X POST https://discord.com/api/webhooks/"+s("discord-webhook")+" -d '{}'")
	fail("toolu_d4", "TWILIO_API_KEY="+s("twilio-key")+" ./sms.sh")
	fail("toolu_d5", "curl -u "+s("twilio-account")+":"+s("twilio-token")+" https://api.twilio.com/2010-04-01/Accounts.json")
	fail("toolu_d6", "SENDGRID_API_KEY="+s("sendgrid")+" ./mail.sh")
	fail("toolu_d7", "docker login -u bot -p "+s("docker-password")+" ghcr.io")
	fail("toolu_d8", "redis-cli -h cache -a "+s("redis-cli-password")+" ping")
	fail("toolu_d9", "doctl auth init -t "+s("digitalocean"))
	// Secrets in files the agent read.
	l.call("toolu_f1", "", "cat ~/.ssh/id_rsa", "-----BEGIN RSA PRIVATE KEY-----\n"+s("rsa-key")+"\n-----END RSA PRIVATE KEY-----\nError: key is world-readable", true)
	l.call("toolu_f2", "", "cat ~/.ssh/id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\n"+s("openssh-key")+"\n-----END OPENSSH PRIVATE KEY-----\nError: bad permissions", true)
	l.call("toolu_f3", "", "cat sa.json", `{"type": "service_account", "project_id": "p", "private_key_id": "`+s("gcp-key-id")+
		`", "private_key": "-----BEGIN PRIVATE KEY-----\n`+strings.ReplaceAll(s("gcp-key"), "\n", `\n`)+`\n-----END PRIVATE KEY-----\n", "client_email": "x@p.iam.gserviceaccount.com"}`+
		"\nError: invalid_grant", true)
	l.call("toolu_f4", "", "cat ~/.docker/config.json", `{"auths": {"ghcr.io": {"auth": "`+s("docker-auth")+`"}}}`+"\nError: denied", true)
	l.call("toolu_f5", "", "cat key.txt", "# created: 2026-01-01\n# public key: age1qqqq\n"+s("age")+"\nError: no identity matched", true)

	// A password assigned, then echoed where no rule sees it, and renamed.
	l.call("toolu_g1", "", "export DB_PASSWORD="+s("known-password")+" && python app.py",
		"Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\nConnectionError: login failed with "+s("known-password"), true)
	l.call("toolu_g2", "", "python3 login.py --pw "+s("known-password"),
		"usage: login.py [-h] [--password PASSWORD]\nlogin.py: error: unrecognized arguments: --pw "+s("known-password"), true)
	l.call("toolu_g3", "", "python3 login.py --password "+s("known-password"), "logged in", false)

	// The assistant's text is cut to 300 characters, inside the token.
	l.call("toolu_h1", strings.Repeat("I will push the branch now. ", 10)+"Using "+s("text-cut")+" as the token.",
		"git push origin main", "Exit code 1\nerror: failed to push some refs", true)

	// An output over 64 KiB keeps its head and tail, 32 KiB each: the tail
	// starts 40 bytes into the key; in the next, on a line too long to be
	// cut between lines, just before a password, after its flag.
	head := strings.Repeat("building module x ... ok\n", 4000) + "export OPENAI_API_KEY="
	end := "\nError: build failed"
	pad := (64<<10)/2 + 40 - len(s("straddle")) - 1 - len(end)
	l.call("toolu_h2", "", "make build", head+s("straddle")+"\n"+strings.Repeat("x", pad)+end, true)
	head = strings.Repeat("building module x ... ok\n", 4000) + "run --password "
	tail := s("straddle-word") + " --verbose "
	tail += strings.Repeat("y", (64<<10)/2-len(tail)-len(end)) + end
	l.call("toolu_h4", "", "make deploy", head+tail, true)

	// grep --color splits a key with escape sequences; what shows it, with
	// the escapes taken out, must not show the key whole.
	l.call("toolu_h6", "", "./check.sh --verbose", "Exit code 1\n.env:3:ANTHROPIC_API_KEY=\x1b[01;31m\x1b[Ksk-ant\x1b[m\x1b[K"+
		s("escape-split")[len("sk-ant"):]+"\nError: key rejected", true)

	// A benchmark whose section header holds a token.
	l.call("toolu_h3", "", "python3 bench.py --concurrency 4", "=== concurrency 4 api_token="+s("bench-token")+" ===\nThroughput: 12.5 req/s", false)

	// A call id that is a token, in a chain that teaches a lesson.
	l.call(s("call-id"), "", "python3 train.py --num-epoch 3",
		"usage: train.py [-h] [--epochs EPOCHS]\ntrain.py: error: unrecognized arguments: --num-epoch 3", true)
	l.call("toolu_h5", "", "python3 train.py --epochs 3", "done", false)
	// A result for no call: a warning names its id.
	l.result(s("orphan-id"), "stray", false)

	claude := filepath.Join(dir, "claude.jsonl")
	if err := os.WriteFile(claude, []byte(strings.Join(l.lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// A Codex exec log whose failed turn quotes secrets: a warning.
	msg, _ := json.Marshal("stream error: 401 Unauthorized, key " + s("codex-github") + " password=" + s("codex-password") + " " + s("codex-openai"))
	codex := filepath.Join(dir, "exec.jsonl")
	if err := os.WriteFile(codex, []byte(strings.Join([]string{
		`{"type":"thread.started","thread_id":"019a5e6f-0a1b-7c2d-8e3f-4a5b6c7d8e9f"}`,
		`{"type":"turn.started"}`,
		`{"type":"item.completed","item":{"id":"item_2","type":"command_execution","command":"bash -lc 'cargo biuld'","aggregated_output":"error: no such command: biuld\n","exit_code":101,"status":"failed"}}`,
		`{"type":"turn.failed","error":{"message":` + string(msg) + `}}`,
		`{"type":"error","message":` + string(msg) + `}`,
	}, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{claude, codex}
}

// A leakFinder finds in text any 8 bytes in a row of a plant's body.
type leakFinder map[string]string // 8 bytes → the plant's name

func newLeakFinder(plants map[string]plant) leakFinder {
	lf := leakFinder{}
	for _, p := range plants {
		for _, part := range strings.FieldsFunc(p.body(), func(r rune) bool { return r == '\n' }) {
			for i := 0; i+8 <= len(part); i++ {
				lf[part[i:i+8]] = p.name
			}
		}
	}
	return lf
}

// find returns the plants of which out shows 8 bytes in a row, with where.
func (lf leakFinder) find(out string) map[string]string {
	found := map[string]string{}
	// Escaped output (JSON's \u002b, HTML's &#43;, Markdown's \_) is read
	// back too, so that a leak in an escaped form is still found.
	unescaped := strings.NewReplacer(`\u002b`, "+", `\u003d`, "=", `\u0026`, "&", "&#43;", "+", "&#61;", "=", "&amp;", "&", `\/`, "/", `\n`, "\n").Replace(out)
	var md strings.Builder
	for i := 0; i < len(out); i++ {
		if out[i] == '\\' && i+1 < len(out) && strings.IndexByte("\\`*_{}[]()#+-.!|<>~", out[i+1]) >= 0 {
			i++
		}
		md.WriteByte(out[i])
	}
	for _, text := range []string{out, unescaped, md.String()} {
		for i := 0; i+8 <= len(text); i++ {
			if name, ok := lf[text[i:i+8]]; ok && found[name] == "" {
				found[name] = text[max(0, i-30):min(len(text), i+38)]
			}
		}
	}
	return found
}

// TestPlantedSecrets runs every command in every output format over the
// planted transcripts, and over retrace's own JSONL of them read back: no
// output, standard error included, shows 8 bytes in a row of any secret
// beyond its public prefix. With --no-redact, every secret shows somewhere,
// so the test can fail.
func TestPlantedSecrets(t *testing.T) {
	dir := t.TempDir()
	files := writePlanted(t, dir)
	plants := planted()
	lf := newLeakFinder(plants)
	getenv := func(k string) string {
		if k == redactKeyVar {
			return "planted test key"
		}
		return ""
	}
	runOut := func(t *testing.T, args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		env := &Env{Stdin: &bytes.Buffer{}, Stdout: &stdout, Stderr: &stderr, Getenv: getenv}
		if status := run(args, env); status != 0 {
			t.Fatalf("%s: status %d: %s", strings.Join(args, " "), status, stderr.String())
		}
		return stdout.String() + stderr.String()
	}
	// Retrace's own JSONL of the transcripts, written with the secrets in
	// it, as a shard made with --no-redact would be.
	pairsFile, benchFile := filepath.Join(dir, "pairs.out"), filepath.Join(dir, "bench.out")
	for file, args := range map[string][]string{pairsFile: {"pairs", "-f", "jsonl"}, benchFile: {"bench", "-f", "jsonl"}} {
		out := runOut(t, append(append(args, "--no-redact", "-q"), files[0])...)
		if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var runs [][]string
	for _, f := range []string{"table", "json", "jsonl"} {
		runs = append(runs, []string{"summary", "-f", f})
	}
	for _, cmd := range []string{"errors", "pairs", "bench"} {
		for _, f := range []string{"table", "json", "jsonl", "csv"} {
			runs = append(runs, []string{cmd, "-f", f})
		}
	}
	runs = append(runs, []string{"bench", "--runs", "--failed"}, []string{"pairs", "--unresolved"})
	for _, f := range []string{"table", "json", "jsonl", "markdown"} {
		runs = append(runs, []string{"lessons", "-f", f})
	}
	runs = append(runs, []string{"report"}, []string{"report", "-f", "html"})
	for i := range runs {
		runs[i] = append(runs[i], files...)
	}
	for _, f := range []string{"text", "json", "jsonl"} {
		runs = append(runs, []string{"show", "-f", f, files[0]})
	}
	for _, f := range []string{"table", "json", "markdown"} {
		runs = append(runs, []string{"lessons", "-f", f, pairsFile})
	}
	for _, f := range []string{"table", "json", "csv"} {
		runs = append(runs, []string{"bench", "-f", f, "--runs", benchFile})
	}

	shown := map[string]bool{} // the plants --no-redact shows
	for _, args := range runs {
		name := strings.Join(args[:len(args)-len(files)], " ")
		if args[len(args)-1] != files[1] {
			name = strings.Join(args[:len(args)-1], " ") + " " + filepath.Base(args[len(args)-1])
		}
		t.Run(name, func(t *testing.T) {
			out := runOut(t, args...)
			leaks := lf.find(out)
			for _, n := range sortedKeys(leaks) {
				t.Errorf("%s shows: %q", n, leaks[n])
			}
			if len(args) > 2 && args[1] == "-f" && args[2] == "json" || args[0] == "report" {
				raw := runOut(t, append([]string{args[0], "--no-redact"}, args[1:]...)...)
				for n := range lf.find(raw) {
					shown[n] = true
				}
			}
		})
	}
	// A secret on a line an output's cut fell in showed in part before
	// outputs were cut between lines; now the cut leaves none of it, masked
	// or not.
	cutAway := map[string]bool{"straddle": true, "straddle-word": true}
	for _, n := range sortedKeys(plants) {
		if !shown[n] && !cutAway[n] {
			t.Errorf("plant %s shows in no output even with --no-redact: the test does not test it", n)
		}
	}
	if len(plants) < 30 {
		t.Errorf("%d plants, want 30 or more", len(plants))
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestKnownAcrossInputs checks that a secret masked in one input is masked
// where another input says it where no rule sees it: in every output once
// all inputs are read, and in JSON Lines, written input by input, in the
// inputs after the one that taught it.
func TestKnownAcrossInputs(t *testing.T) {
	dir := t.TempDir()
	pw := fakeOf(70, 12, fAlnum)
	write := func(name, prompt, command, output string) string {
		l := &claudeLog{t: t}
		if prompt != "" { // the session's title
			l.add("user", map[string]any{"role": "user", "content": prompt})
		}
		l.call("toolu_1", "", command, output, true)
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(strings.Join(l.lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	echo := write("echo.jsonl", "Log in to the database as "+pw+" and run the checks", "./connect.sh", "Error: login refused for "+pw)
	teach := write("teach.jsonl", "", "export DB_PASSWORD="+pw+" && ./migrate.sh", "Error: migration failed")
	getenv := func(string) string { return "" }
	for _, tc := range []struct {
		args []string
	}{
		{[]string{"errors", echo, teach}},
		{[]string{"errors", "-f", "json", echo, teach}},
		{[]string{"errors", "-f", "csv", echo, teach}},
		{[]string{"pairs", "-f", "json", echo, teach}},
		{[]string{"pairs", echo, teach}},
		{[]string{"report", echo, teach}},
		{[]string{"report", "-f", "html", echo, teach}},
		{[]string{"summary", "-f", "json", echo, teach}},
		{[]string{"summary", "--wide", echo, teach}},
		{[]string{"errors", "-f", "jsonl", teach, echo}},
		{[]string{"pairs", "-f", "jsonl", teach, echo}},
	} {
		var stdout, stderr bytes.Buffer
		env := &Env{Stdin: &bytes.Buffer{}, Stdout: &stdout, Stderr: &stderr, Getenv: getenv}
		if status := run(tc.args, env); status != 0 {
			t.Fatalf("%s: status %d: %s", tc.args[0], status, stderr.String())
		}
		out := stdout.String() + stderr.String()
		name := strings.Join(tc.args[:len(tc.args)-2], " ")
		if strings.Contains(out, pw) {
			t.Errorf("%s: the password shows:\n%s", name, out)
		}
		if tc.args[0] != "summary" && !strings.Contains(out, "[secret:password:") {
			t.Errorf("%s: no mask:\n%s", name, out)
		}
	}
}
