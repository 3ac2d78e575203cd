package redact

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"slices"
	"strings"
	"sync"
)

// Options configures a Redactor. The zero value masks secrets only, with a
// random hash key.
type Options struct {
	// Hosts also masks IP addresses and the user name in home-directory
	// paths (--redact-hosts).
	Hosts bool

	// Key keys the hash that names each masked value. Empty means a random
	// key drawn by New: masks are stable within one Redactor, so within one
	// report, but differ between runs. Give a fixed key for reproducible
	// output (tests, goldens); see the package comment for the trade-off.
	Key []byte
}

// A Redactor masks secrets in text. It is configured once by New and is
// safe for concurrent use.
//
// A nil *Redactor masks nothing, so a caller can stand for --no-redact with
// a nil Redactor.
type Redactor struct {
	hosts bool
	pairs *pairTable
	macs  *sync.Pool // of hash.Hash: HMAC-SHA256 under the key
	mem   *memory    // the secrets masked so far; nil when none are remembered
}

// New returns a Redactor configured by o. It copies o.Key. It remembers no
// secret: see Remembering.
func New(o Options) *Redactor {
	r := &Redactor{hosts: o.Hosts, pairs: &secretPairs, macs: new(sync.Pool)}
	if o.Hosts {
		r.pairs = &hostPairs
	}
	key := slices.Clone(o.Key)
	if len(key) == 0 {
		key = make([]byte, 32)
		rand.Read(key) // never fails (crypto/rand, Go 1.24+)
	}
	r.macs.New = func() any { return hmac.New(sha256.New, key) }
	return r
}

// Remembering returns a Redactor that masks as r does, with r's key, and
// remembers each secret it masks from then on (but for values shorter than
// 6 bytes, and words: see memorable), to mask it wherever else it meets it,
// as the kind it was found as: a password masked in "export
// DB_PASSWORD=…" is masked in the traceback that echoes it. It starts
// with an empty memory of its own. A nil r gives nil.
//
// A value met before it was learned is not masked there by String; Known
// masks it once all the texts are read.
func (r *Redactor) Remembering() *Redactor {
	if r == nil {
		return nil
	}
	return &Redactor{hosts: r.hosts, pairs: r.pairs, macs: r.macs, mem: new(memory)}
}

// Learn adds to what r remembers the secrets o remembers. It does nothing
// when either does not remember.
func (r *Redactor) Learn(o *Redactor) {
	if r == nil || r.mem == nil || o == nil || o.mem == nil || o.mem == r.mem {
		return
	}
	vs, kinds := o.mem.values()
	r.mem.mu.Lock()
	defer r.mem.mu.Unlock()
	for _, v := range vs {
		r.mem.add(v, kinds[v])
	}
}

// String returns s with every secret replaced by "[secret:<kind>:<hash>]",
// and, when Options.Hosts is set, every IP address by "[host:<hash>]" and
// every home-directory user name by "[user:<hash>]". <hash> is the first 4
// hex digits of an HMAC-SHA256 of the masked text, so one value gets one
// mask everywhere. Text around a secret (a header name, a flag, a URL's
// user and host) is kept. A Redactor that remembers learns the secrets of
// s, then masks every secret it knows.
//
// String returns s itself when there is nothing to mask. Its output is
// valid UTF-8 when s is, and String(String(s)) == String(s).
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	found := r.find(s)
	if len(found) > 0 {
		found = resolve(found)
	}
	var cuts []cutKnown
	if r.mem != nil {
		r.mem.mu.Lock()
		r.mem.learn(s, found)
		n := len(found)
		found, cuts = r.mem.find(s, found, nil)
		r.mem.mu.Unlock()
		if len(found) > n {
			found = resolve(found)
		}
	}
	return r.mask(s, found, cuts)
}

// Study learns the secrets of s as String does, without masking s: for a
// text that is not printed, read for the secrets it teaches, which a
// printed text may say where no rule sees them. It does nothing when r
// does not remember.
func (r *Redactor) Study(s string) {
	if r == nil || r.mem == nil {
		return
	}
	found := r.find(s)
	if len(found) == 0 {
		return
	}
	found = resolve(found)
	r.mem.mu.Lock()
	r.mem.learn(s, found)
	r.mem.mu.Unlock()
}

// Known returns s with every secret r remembers masked, as String masks
// it, and nothing else. It masks what String could not when the value
// came before the text that taught it.
func (r *Redactor) Known(s string) string {
	if r == nil || r.mem == nil {
		return s
	}
	r.mem.mu.Lock()
	found, cuts := r.mem.find(s, nil, nil)
	r.mem.mu.Unlock()
	if len(found) == 0 {
		return s
	}
	return r.mask(s, resolve(found), cuts)
}

// Remembers reports whether r remembers any secret, so that Known has
// something to mask.
func (r *Redactor) Remembers() bool {
	if r == nil || r.mem == nil {
		return false
	}
	r.mem.mu.Lock()
	defer r.mem.mu.Unlock()
	return len(r.mem.kinds) > 0
}

// mask returns s with the spans found, ordered and disjoint, replaced by
// their masks. A span that is the start of a remembered value cut short
// (cuts) gets the mask of the whole value.
func (r *Redactor) mask(s string, found []span, cuts []cutKnown) string {
	if len(found) == 0 {
		return s
	}
	m := &masker{mac: r.macs.Get().(hash.Hash)}
	defer r.macs.Put(m.mac)
	var b strings.Builder
	b.Grow(len(s) + 16*len(found))
	last := 0
	for _, f := range found {
		b.WriteString(s[last:f.start])
		v := s[f.start:f.end]
		for _, c := range cuts {
			if c.start == f.start && strings.HasPrefix(c.value, v) {
				v = c.value
			}
		}
		m.write(&b, f.kind, v)
		last = f.end
	}
	b.WriteString(s[last:])
	return b.String()
}

// A masker writes masks for one call of String, remembering the hashes it
// has computed, since a report tends to repeat the same secret.
type masker struct {
	mac  hash.Hash
	seen map[string][4]byte
}

// write writes the mask of value, found as kind k.
//
// The hash is an HMAC-SHA256, not a plain SHA-256: 4 hex digits are 16 bits,
// few enough to test guesses against. With a plain hash, anyone holding the
// report could check a candidate password, user name or private IP address
// (a /16 has only 65,536 of them) against its mask. Keyed, the mask says
// only "same value as the other masks with this hash". The kind is left out
// of the hash so that one value found by two rules still reads the same.
func (m *masker) write(b *strings.Builder, k kind, value string) {
	digits, ok := m.seen[value]
	if !ok {
		m.mac.Reset()
		m.mac.Write([]byte(value))
		var sum [sha256.Size]byte
		hex.Encode(digits[:], m.mac.Sum(sum[:0])[:2])
		if m.seen == nil {
			m.seen = make(map[string][4]byte)
		}
		m.seen[value] = digits
	}
	b.WriteByte('[')
	if k != kindHost && k != kindUser {
		b.WriteString("secret:")
	}
	b.WriteString(kinds[k])
	b.WriteByte(':')
	b.Write(digits[:])
	b.WriteByte(']')
}

// A span is a value to mask: s[start:end], found as kind.
type span struct {
	start, end int
	kind       kind
}

// resolve sorts spans and merges overlapping ones, so that the result is
// ordered and disjoint. Merged spans cover all of their parts, so nothing
// of a secret is left out, and keep the most specific kind among them: a
// JWT in an Authorization header is a jwt, not a bearer-token, and a
// private key that is the value of "private_key" is a private-key.
func resolve(sp []span) []span {
	slices.SortFunc(sp, func(a, b span) int {
		switch {
		case a.start != b.start:
			return a.start - b.start
		case a.end != b.end:
			return b.end - a.end // longer first
		default:
			return int(a.kind) - int(b.kind) // more specific first
		}
	})
	out := sp[:1]
	for _, f := range sp[1:] {
		last := &out[len(out)-1]
		if f.start >= last.end {
			out = append(out, f)
			continue
		}
		last.end = max(last.end, f.end)
		last.kind = min(last.kind, f.kind)
	}
	return out
}
