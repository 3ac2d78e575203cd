package redact

import (
	"strings"
	"testing"
)

// classifyAll is classify without the quick test of secretEnds: it reads
// every name's tail.
func classifyAll(name string) nameClass {
	name = strings.TrimLeft(name, "-")
	if name == "" || len(name) > 64 || !secretEnd(name[len(name)-1]) {
		return notSecret
	}
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

var classifyNames = []string{
	"", "-", "--", "s", "PASS", "pass", "db_pass", "DB-PASS", "x.pass", "MYSQL_PWD", "my-pwd", "PWD",
	"PGPASSWORD", "pass_word", "passwd", "--passphrase", "-storepass", "keypass", "GITHUB_TOKEN",
	"to_ken", "client_secret", "x-api-key", "SecretAccessKey", "AWS_SECRET_ACCESS_KEY", "MAX_TOKENS",
	"TOKEN_TYPE", "secretName", "authKey", "private.key", "key", "ey", "y", "monkey", "password_",
	"token.", "tok-en", "sec_ret", "Ke_Y", "name", "value", "address",
	"AccountKey", "SharedAccessKey", "AZURE_STORAGE_KEY", "sig", "SIG", "X-Amz-Signature", "x_goog_signature", "auth",
	"AUTH", "REDISCLI_AUTH", "basic_auth", "oauth", "private_key_id", "user_id", "pid", "config", "hash",
}

func TestClassify(t *testing.T) {
	for _, n := range classifyNames {
		if got, want := classify(n), classifyAll(n); got != want {
			t.Errorf("classify(%q) = %d, want %d", n, got, want)
		}
	}
}

// FuzzClassify checks classify against classifyAll.
func FuzzClassify(f *testing.F) {
	for _, n := range classifyNames {
		f.Add(n)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := classify(name), classifyAll(name); got != want {
			t.Errorf("classify(%q) = %d, want %d", name, got, want)
		}
	})
}
