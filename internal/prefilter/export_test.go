package prefilter

// All returns every Regexp made so far.
func All() []*Regexp { return all }

// From is from, for the differential tests.
func (p *Regexp) From(s string) (int, bool) { return p.from(s) }

// Needles returns p's needles; nil when it has none.
func (p *Regexp) Needles() []string { p.ready(); return p.needles }

// ByLine is byLine, for the differential tests.
func (p *Regexp) ByLine(s string) bool { return p.byLine(s) }

// TryAt is tryAt, for the differential tests.
func (p *Regexp) TryAt(s string) bool { return p.tryAt(s) }

// Words returns the strings a line holds exactly when it is a match of p;
// nil when p's matches are not whole lines.
func (p *Regexp) Words() []string { p.ready(); return p.words }
