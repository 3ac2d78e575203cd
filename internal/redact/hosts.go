package redact

import (
	"net/netip"
	"strings"
)

// This file holds the rules of Options.Hosts: IP addresses and the user
// name in home-directory paths.

var broadcast = netip.AddrFrom4([4]byte{255, 255, 255, 255})

// keepAddr reports whether a is left visible: loopback, unspecified and
// broadcast addresses say nothing about the machine.
func keepAddr(a netip.Addr) bool {
	return a.IsLoopback() || a.IsUnspecified() || a == broadcast
}

// ipv4At matches a dotted-quad IPv4 address whose first octet ends at i.
// Four numbers only: "1.2.3.4.5" (an OID, a long version) is left alone, as
// is a number glued to a word ("v1.2.3.4").
func ipv4At(s string, i int) (span, bool) {
	st := i
	for st > 0 && i-st < 2 && isDigit(s[st-1]) {
		st--
	}
	if !before(s, st, cIdent) {
		return span{}, false
	}
	e := i + 1
	for range 3 {
		if e >= len(s) || s[e] != '.' {
			return span{}, false
		}
		f := e + 1
		for f < len(s) && f-e <= 4 && isDigit(s[f]) {
			f++
		}
		if f == e+1 || f-e > 4 {
			return span{}, false
		}
		e = f
	}
	if !after(s, e, cUWord) || e+1 < len(s) && s[e] == '.' && isDigit(s[e+1]) {
		return span{}, false
	}
	a, err := netip.ParseAddr(s[st:e])
	if err != nil || keepAddr(a) {
		return span{}, false
	}
	return span{st, e, kindHost}, true
}

// ipv6At matches an IPv6 address around the ':' at i. The address must
// hold a digit, so that a C++ or Rust path made of hex letters ("abc::def")
// does not pass for one, and must parse; times ("12:34:56") and MAC
// addresses do not.
func ipv6At(s string, i int) (span, bool) {
	// Only the first colon of a run is looked at: the address, if any, was
	// found from there. This keeps long runs of colons linear.
	st := i
	for st > 0 && i-st < 45 && is(s[st-1], cHexIP) {
		if s[st-1] == ':' {
			return span{}, false
		}
		st--
	}
	if !before(s, st, cHexIP|cUWord) {
		return span{}, false
	}
	e := i
	for e < len(s) && e-st < 46 && is(s[e], cHexIP) {
		e++
	}
	if !after(s, e, cHexIP|cUWord) {
		return span{}, false
	}
	for e > i+1 && s[e-1] == '.' { // the end of a sentence
		e--
	}
	cand := s[st:e]
	if !ipv6Shape(cand) {
		return span{}, false
	}
	a, err := netip.ParseAddr(cand)
	if err != nil || keepAddr(a) {
		return span{}, false
	}
	return span{st, e, kindHost}, true
}

// userAt matches the user name in /home/<user>, /Users/<user> (also as
// /mnt/c/Users/<user> and C:/Users/<user>) and C:\Users\<user> (also with
// the backslashes doubled, as in JSON), at the slash or backslash at i.
// /home inside a longer path (a URL's path, /var/home) is left alone.
func userAt(s string, i int) (span, bool) {
	var p int
	switch {
	case strings.HasPrefix(s[i:], "/home/"):
		if !before(s, i, cIdent) {
			return span{}, false
		}
		p = i + len("/home/")
	case strings.HasPrefix(s[i:], "/Users/"):
		if !before(s, i, cIdent) && !(i >= 2 && isLetter(s[i-1]) && s[i-2] == '/') {
			return span{}, false
		}
		p = i + len("/Users/")
	case strings.HasPrefix(s[i:], `\Users\`):
		p = i + len(`\Users\`)
		if p < len(s) && s[p] == '\\' {
			p++
		}
	default:
		return span{}, false
	}
	e := run(s, p, cIdent, 65)
	if e-p > 64 {
		return span{}, false
	}
	for e > p && s[e-1] == '.' { // the end of a sentence
		e--
	}
	switch s[p:e] {
	case "", ".", "Shared", "Public", "Default":
		return span{}, false
	}
	return span{p, e, kindUser}, true
}

// ipv6Shape reports whether cand has the shape of an IPv6 address: hex
// groups of at most 4 digits, eight of them or fewer with "::", the last
// maybe a dotted IPv4 address, and a decimal digit somewhere. It spares
// netip.ParseAddr (and the error it allocates) the times and counters
// that make up most colon-separated numbers in a transcript. Two short
// groups around "::" ("1::4", "[::2]") are Python slices more often than
// addresses, and "::1:5453" is netstat's loopback and port; they need a
// group of 3 or more digits, or 3 groups after a leading "::".
func ipv6Shape(cand string) bool {
	colons := strings.Count(cand, ":")
	if colons < 2 || !strings.ContainsAny(cand, "0123456789") {
		return false
	}
	compressed := strings.Contains(cand, "::")
	groups, long, dotted := 0, false, false
	for g := range strings.SplitSeq(cand, ":") {
		switch {
		case strings.IndexByte(g, '.') >= 0:
			dotted = true
			colons++ // an IPv4 tail stands for two groups
		case len(g) > 4:
			return false
		case len(g) >= 3:
			long = true
		}
		if g != "" {
			groups++
		}
	}
	if !dotted && (!long || strings.HasPrefix(cand, "::") && groups < 3) {
		return false
	}
	return compressed && colons <= 8 || !compressed && colons == 7
}
