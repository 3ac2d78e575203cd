package parser

import "strings"

// detach copies every string of s into memory of its own. A decoder that
// reads its input whole, or a line at a time into one string, cuts the
// session's strings from that string, and any one of them kept would keep
// all of it: a session read from a 5 MB export would hold 5 MB for as long
// as it lives. Names that repeat (tools, statuses, argument keys) are kept
// once.
func (s *Session) detach() {
	seen := make(map[string]string)
	once := func(v string) string {
		if k, ok := seen[v]; ok {
			return k
		}
		k := strings.Clone(v)
		seen[k] = k
		return k
	}
	for _, p := range []*string{&s.ID, &s.Title, &s.Cwd, &s.Model, &s.Agent} {
		*p = strings.Clone(*p)
	}
	for i, n := range s.Notes {
		s.Notes[i] = strings.Clone(n)
	}
	for _, e := range s.Skipped {
		e.Msg = strings.Clone(e.Msg)
	}
	for _, c := range s.Calls {
		c.ID, c.Command, c.File = strings.Clone(c.ID), strings.Clone(c.Command), strings.Clone(c.File)
		c.Output, c.Text = strings.Clone(c.Output), strings.Clone(c.Text)
		c.Tool, c.Status, c.Note, c.Sidechain = once(c.Tool), Status(once(string(c.Status))), once(c.Note), once(c.Sidechain)
		if c.Args != nil {
			args := make(map[string]string, len(c.Args))
			for k, v := range c.Args {
				args[once(k)] = strings.Clone(v)
			}
			c.Args = args
		}
	}
}
