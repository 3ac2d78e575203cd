package parser

// toValidUTF8 replaces the bytes of the session's text that are not UTF-8
// with U+FFFD: transcripts hold what tools printed, invalid bytes
// included, and every output of retrace must be valid text.
func (s *Session) toValidUTF8() {
	s.toValidUTF8Fields()
	for _, c := range s.Calls {
		c.toValidUTF8()
	}
}

// toValidUTF8Fields does what toValidUTF8 does to the session's own
// fields, not to its calls'.
func (s *Session) toValidUTF8Fields() {
	for _, p := range []*string{&s.ID, &s.Title, &s.Cwd, &s.Model, &s.Agent} {
		*p = validUTF8(*p)
	}
}

// toValidUTF8 does what Session.toValidUTF8 does to one call.
func (c *Call) toValidUTF8() {
	for _, p := range []*string{&c.ID, &c.Tool, &c.Command, &c.File, &c.Output, &c.Note, &c.Text, &c.Sidechain} {
		*p = validUTF8(*p)
	}
	c.Status = Status(validUTF8(string(c.Status)))
	for k, v := range c.Args {
		if vk := validUTF8(k); vk != k {
			delete(c.Args, k)
			k = vk
		}
		c.Args[k] = validUTF8(v)
	}
}
