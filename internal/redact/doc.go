// Package redact masks secrets in text before it leaves retrace: API keys
// and tokens, passwords, private keys and, optionally, IP addresses and
// user names. retrace applies it to every output unless --no-redact is
// given; --redact-hosts sets Options.Hosts.
//
// # Mask format
//
// A secret becomes "[secret:<kind>:<hash>]", an IP address "[host:<hash>]"
// and a user name "[user:<hash>]", where <hash> is the first 4 hex digits
// of an HMAC-SHA256 of the masked text. The same value gets the same mask
// throughout the output of one Redactor, so a reader can still tell that
// the token sent in step 3 is the one that failed in step 9. Four digits
// can collide: two different secrets share a mask about once in 65,536
// pairs.
//
// Only the secret is replaced; what names it stays:
//
//	Authorization: Bearer eyJhbGciOi…  →  Authorization: Bearer [secret:jwt:3f2a]
//	https://deploy:pa55w0rd@db.internal/  →  https://deploy:[secret:url-password:91c0]@db.internal/
//	mysql -u root --password hunter2  →  mysql -u root --password [secret:password:5e1b]
//	export PGPASSWORD=hunter2  →  export PGPASSWORD=[secret:password:5e1b]
//	cd /home/alice/src  →  cd /home/[user:c81d]/src  (with Options.Hosts)
//
// A PEM private key block is replaced whole, BEGIN and END lines included.
//
// # Hash key
//
// The hash is keyed because 16 bits are enough to test guesses: with a
// plain SHA-256, whoever holds a report could check a candidate password, a
// user name from a staff list or each of the 65,536 addresses of a private
// /16 against its mask. By default New draws a random key, so masks match
// within one run but not across runs, and reveal nothing else. A caller
// that needs reproducible output (golden files, or two reports to be
// compared) passes Options.Key, and should treat that key as a secret.
//
// # What is masked
//
// Kinds, most specific first (when two rules find the same text, the first
// one names it):
//
//   - private-key: a PEM block "-----BEGIN … PRIVATE KEY-----" (RSA, EC, DSA,
//     OPENSSH, ENCRYPTED, PGP … KEY BLOCK) to its END line, with real or
//     JSON-escaped line breaks; a block cut short is masked to the end of
//     its base64 lines.
//   - anthropic-key: sk-ant- and 32 or more of [A-Za-z0-9_-].
//   - openai-key: sk- (sk-proj-, sk-svcacct-, sk-admin-) and 32 or more of
//     [A-Za-z0-9_-] that mix upper case, lower case and digits; or sk- (or
//     OpenRouter's sk-or-v1-) and 32 or more letters and digits with 10
//     distinct bytes and no dash, as hex keys of providers that copied
//     OpenAI's shape are (DeepSeek's sk- and 32 hex digits).
//   - github-token: ghp_, gho_, ghu_, ghs_, ghr_ and 36 of [A-Za-z0-9];
//     github_pat_ and 40 or more of [A-Za-z0-9_].
//   - gitlab-token: glpat-, gldt-, glrt-, glptt-, glft-, glsoat-, gloas-,
//     glcbt-, glimt-, glagent-, glffct- and 20 or more of [A-Za-z0-9_-], with
//     the routing suffix of new tokens (.xxxxxxxxx).
//   - slack-token: xoxb-, xoxp-, xoxa-, xoxe-, xoxr-, xoxs-, xapp- and 10 or
//     more of [A-Za-z0-9-] holding at least 8 digits.
//   - slack-webhook: the path of an incoming webhook after
//     https://hooks.slack.com/services/ (or /workflows/, /triggers/).
//   - discord-webhook: the id and token after
//     https://discord.com/api/webhooks/ (discordapp.com, ptb., canary.).
//   - discord-token: a bot token: the base64url of a numeric id of 17 to 20
//     digits, a dot, 6 or 7 characters, a dot and 27 or more.
//   - aws-access-key: AKIA, ASIA, ABIA or ACCA and 16 of [A-Z0-9].
//   - aws-secret: 40 of [A-Za-z0-9/+=] given to aws_secret_access_key,
//     AWS_SECRET_ACCESS_KEY or SecretAccessKey (=, :, JSON, or a space as
//     in "aws configure set aws_secret_access_key …").
//   - google-api-key: AIza and 35 of [A-Za-z0-9_-].
//   - huggingface-token: hf_ and 30 to 40 of [A-Za-z0-9] in both cases.
//   - stripe-key: sk_ or rk_, then live_, test_ or prod_, and 16 or more of
//     [A-Za-z0-9].
//   - npm-token: npm_ and 36 of [A-Za-z0-9].
//   - pypi-token: pypi-AgEIcHlwaS5vcmc (pypi.org) or pypi-AgENdGVzdC5weXBpLm9yZw
//     (test.pypi.org) and 50 or more of [A-Za-z0-9_-].
//   - sendgrid-key: SG., 22 of [A-Za-z0-9_-], a dot and 43 more.
//   - twilio-key: SK (an API key's SID) or AC (an account SID) and 32 hex
//     digits; with its secret or auth token (a generic-secret) it is a
//     credential.
//   - azure-key: 40 or more of [A-Za-z0-9/+=] given to AccountKey,
//     SharedAccessKey or a name ending in StorageKey, as Azure connection
//     strings hold them.
//   - age-key: AGE-SECRET-KEY-1 and 58 bech32 characters.
//   - api-token: the tokens of more providers, known by their prefix and
//     the length and class of what follows: DigitalOcean (dop_v1_, doo_v1_,
//     dor_v1_), Shopify (shpat_, shpca_, shppa_, shpss_), HashiCorp Vault
//     (hvs., hvb.), Grafana (glc_, glsa_), Groq (gsk_), Perplexity (pplx-),
//     xAI (xai-), Replicate (r8_), Linear (lin_api_), Postman (PMAK-), Sentry
//     (sntrys_, sntryu_), New Relic (NRAK-), Databricks (dapi), Atlassian
//     (ATATT3), Doppler (dp.pt., dp.st., dp.sa.), Pulumi (pul-), Heroku
//     (HRKU-), Fly.io (fo1_), Google OAuth access tokens and client secrets
//     (ya29., GOCSPX-), RubyGems (rubygems_), Hugging Face organizations
//     (api_org_), Stripe webhook secrets (whsec_), Square (sq0atp-, sq0csp-)
//     and Mailgun (key- and 32 hex digits).
//   - jwt: eyJ… "." … "." …, three base64url parts (the signature may be
//     empty).
//   - signature: the signature of a signed URL, which lets whoever holds
//     the URL in: sig= in a query (Azure SAS), X-Amz-Signature=,
//     X-Goog-Signature= and other names ending in signature, given 16 or
//     more bytes of base64, base64url or hex, URL-encoded or not.
//   - basic-auth: the base64 of user:password after "Basic " (an HTTP
//     Authorization header) or given to "auth" (Docker's config.json) or a
//     name ending in _auth.
//   - url-password: the password of scheme://user:password@host, the user
//     possibly empty (redis://:password@host).
//   - bearer-token: the token after "Bearer " (any case) when it looks
//     generated: 16 or more bytes, with letters and digits.
//   - password: the value of a name ending in password, passwd, passphrase,
//     _pass or _pwd (PGPASSWORD=, DB_PASS=, MYSQL_PWD=, REDISCLI_AUTH=,
//     "password": "…", password: … at the start of a YAML line,
//     ?password=…, password := "…"), of the flags --password, --passwd,
//     --db-password, -storepass and the like (with = or a space), of
//     mysql's and mariadb's -pSECRET and -p'SECRET' (attached only: "mysql
//     -p db" prompts, and db is a database), of sshpass -p, of curl -u, -U,
//     --user and --proxy-user user:SECRET (-sSu and other clusters
//     included), of openssl's pass:SECRET, of the -p of a command that logs
//     in (docker login, podman login, helm registry login) or names mongo
//     (mongosh, mongodump), of redis-cli -a and of ldapsearch's and its
//     kin's -w. A -p, -a or -w that is a number is a port, not a
//     password. A bare -p counts for mysql, mariadb and sshpass only as the
//     first -p of a command (the text after the last line break, ;, | or
//     &&) that names them: mkdir -p, ssh -p 2222 and the -p of other tools
//     are left alone. psql takes no password on its command line
//     (PGPASSWORD= is covered).
//   - generic-secret: a random-looking value (16 or more bytes, two of upper
//     case, lower case and digits, 8 distinct bytes) given to a name ending in
//     token, secret, api_key, access_key, secret_key, private_key,
//     private_key_id or auth_key (GITHUB_TOKEN=…, "client_secret": "…",
//     X-Api-Key: …, --token …, aws configure set aws_session_token …).
//
// With Options.Hosts:
//
//   - host: IPv4 and IPv6 addresses, except loopback (127.0.0.0/8, ::1),
//     unspecified (0.0.0.0, ::) and broadcast (255.255.255.255).
//   - user: the user name in /home/<user>, /Users/<user>, /mnt/c/Users/<user>,
//     C:\Users\<user> and C:\\Users\\<user>, except Shared, Public and
//     Default.
//
// # Cut text
//
// retrace cuts long texts to fit: a title to a line, an argument to 200
// characters, a table cell to its width, an output longer than 64 KiB to
// its head and tail around a line "[… N bytes omitted …]". A secret cut
// short loses its shape: "sk-ant-api03-Q9w8E7…" is too short for a key and
// "PASSWORD=hunt…" reads as a placeholder. So a token, a value, a URL's
// password, a bearer token, a JWT's claims or a private key block that
// runs into an ellipsis or into that line is masked however little of it
// is left, as long as something of its own part is: "sk-…", "ghp_…" and
// "PASSWORD=…" are placeholders still. Texts should be masked before they
// are cut all the same; this catches what was cut first.
//
// # Known secrets
//
// A secret is often found once by its shape or its name and met again
// where nothing marks it: the password of "export DB_PASSWORD=…" echoed by
// a traceback, renamed in a diff, typed again in the next call. A Redactor
// from Remembering remembers each secret it masks and masks it wherever
// else it meets it, with the same mask, and Known masks the remembered
// secrets in text read before they were learned. Learn passes what one
// Redactor remembers to another: retrace gives each input its own, then
// gathers them in input order. Remembered are values of 6 bytes or more,
// on one line, holding a letter and a byte that is not one ("hunter2xyz",
// tokens), at most 4096 of them: a word or a number ("postgres", "123456")
// would be masked wherever it is said. A remembered value is masked only
// as a word of its own (not inside "hunter2xyz1"), and its start cut short
// by an ellipsis, as the whole value.
//
// # What is not masked
//
// These are left alone on purpose, to keep reports readable:
//
//   - Placeholders and references: sk-..., <your-key>, $OPENAI_API_KEY,
//     ${TOKEN}, %TOKEN%, {{ .Token }}, xxxx…, ****, the AWS documentation keys
//     (…EXAMPLE), an earlier mask, and free-form values (passwords, bearer and
//     generic tokens) that contain "your", "example", "changeme", "secret",
//     "fake", "sample", "dummy", "placeholder" or "redacted", or are words
//     such as "password", "null" or "test".
//   - Names that are not secrets though they sound like one: MAX_TOKENS,
//     token_type, secretName, PWD, git's user.signingkey (a key ID).
//   - Code that names a secret without holding it: password=password,
//     password = getpass(), token=os.environ["TOKEN"], self.password.
//   - Prose: "password" or "token" in a sentence, "the bearer of", "sk-learn",
//     "Password: use the admin one" (a bare word after a colon).
//   - Hex and base64 that is not a key: git commit hashes, UUIDs, checksums,
//     base64 file contents, unless a rule above claims them.
//   - Stripe publishable keys (pk_…) and other values that are public by
//     design; user names outside home paths (user@host, "-u root"); a
//     JWT's header, unless the token is whole or its claims are cut short.
//   - Public keys and certificates, SSH public keys, age recipients
//     (age1…), key IDs such as git's user.signingkey.
//   - Secrets with no mark at all: a random string on its own, a password
//     typed at a prompt, a key under a name the rules do not know. Entropy
//     alone would flag every hash in a transcript.
//   - Loopback, unspecified and broadcast addresses, host names, version
//     numbers of three parts, and what reads as a Python slice or netstat's
//     loopback and port ("[1::4]", "::1:5453"); a four-part version such as
//     "9.4.9.0" is masked as an address.
//   - The tail of an unquoted value longer than 1 KB: its first 1 KB is
//     masked.
//
// # Use
//
// Apply String to transcript text before it is cut to fit a table cell
// and before it is escaped for HTML, Markdown or JSON: a secret cut short
// ("ghp_1a2b…") no longer has its full shape and may not be found, and an
// escaped one may not be found whole. Escaped JSON ("\n", \") is understood,
// but decoded text is what the rules were written for.
//
// # Cost
//
// Text is scanned once, with one table lookup per byte for the two-byte
// sequences that can start a match ("sk", "gh", "AK", "eyJ", "=", ":", "--"
// …); the rules run only there. Text with nothing to mask is returned as
// is, without allocating.
package redact
