package analyzer

// This file lets a caller change every text a report holds, as masking
// secrets does: a secret learned late is masked in what was analyzed
// before it was known, and records read back from retrace's own JSON Lines
// are masked as they are read.

// MapStrings replaces each text of the report that came from a transcript
// with f of it: the session's own (see parser.Session.MapStrings), its
// calls', and every text of its failures, chains and numbers. The names of
// inputs (session paths, positions) are kept. Some texts are reached
// twice, as a chain's failure is also one of the report's failures: f
// must give back unchanged what it has already given, as masking does.
func (r *SessionReport) MapStrings(f func(string) string) {
	r.MapFindings(f)
	for _, c := range r.Session.Calls {
		c.MapStrings(f)
	}
}

// MapFindings is MapStrings but for the session's calls: it maps the
// session's own texts and every text of its failures, chains and numbers.
func (r *SessionReport) MapFindings(f func(string) string) {
	r.Session.MapStrings(f)
	r.Session.Format = f(r.Session.Format)
	for _, fl := range r.Failures {
		fl.MapStrings(f)
	}
	for _, ch := range r.Chains {
		ch.MapStrings(f)
	}
	for _, b := range r.Benchmarks {
		b.MapStrings(f)
	}
	for _, t := range r.Timelines {
		t.mapStrings(f)
	}
	mapAll(r.programs, f)
}

// MapStrings replaces each text of the lesson with f of it, but for the
// paths of the places it was made at.
func (l *Lesson) MapStrings(f func(string) string) {
	l.Target, l.Kind, l.Wrong, l.Right = f(l.Target), LessonKind(f(string(l.Kind))), f(l.Wrong), f(l.Right)
	for i := range l.Where {
		l.Where[i].CallID = f(l.Where[i].CallID)
	}
	mapAll(l.ValidFlags, f)
}

// MapStrings replaces each text of the summary that came from a
// transcript with f of it: the sessions' ids, titles, projects and notes.
// Their paths are kept.
func (sum *Summary) MapStrings(f func(string) string) {
	for i := range sum.Sessions {
		ss := &sum.Sessions[i]
		ss.Format, ss.ID, ss.Title, ss.Project = f(ss.Format), f(ss.ID), f(ss.Title), f(ss.Project)
		mapAll(ss.Notes, f)
	}
}

func (ref *SessionRef) mapStrings(f func(string) string) {
	ref.Format, ref.ID = f(ref.Format), f(ref.ID)
}

// MapStrings replaces each text of the failure that came from a transcript
// with f of it.
func (fl *Failure) MapStrings(f func(string) string) {
	fl.Session.mapStrings(f)
	for _, p := range []*string{&fl.CallID, &fl.Tool, &fl.Command, &fl.Target, &fl.Host, &fl.Sidechain} {
		*p = f(*p)
	}
	if fl.FixedBy != nil {
		id := f(*fl.FixedBy)
		fl.FixedBy = &id
	}
	mapAll(fl.excerpt, f)
	fl.Diagnosis.MapStrings(f)
}

// MapStrings replaces each text of the chain that came from a transcript
// with f of it: its failures', its fix's, its diff's and its numbers'.
func (ch *Chain) MapStrings(f func(string) string) {
	ch.Session.mapStrings(f)
	if ch.Failure != nil {
		ch.Failure.MapStrings(f)
	}
	for _, fl := range ch.failures {
		fl.MapStrings(f)
	}
	mapAll(ch.Retries, f)
	if fx := ch.Fix; fx != nil {
		fx.CallID, fx.Command, fx.Kind = f(fx.CallID), f(fx.Command), FixKind(f(string(fx.Kind)))
		mapAll(fx.Because, f)
		mapAll(fx.Files, f)
		mapAll(fx.Changes, f)
	}
	if d := ch.Diff; d != nil {
		for i := range d.Renamed {
			r := &d.Renamed[i]
			r.From, r.To, r.FromValue, r.ToValue, r.By = f(r.From), f(r.To), f(r.FromValue), f(r.ToValue), RenameBy(f(string(r.By)))
		}
		mapAll(d.Removed, f)
		mapAll(d.Added, f)
		for i := range d.Changed {
			c := &d.Changed[i]
			c.Flag, c.From, c.To = f(c.Flag), f(c.From), f(c.To)
		}
		if w := d.Wrapper; w != nil {
			w.From, w.To = f(w.From), f(w.To)
		}
		if in := d.Input; in != nil {
			mapAll(in.Removed, f)
			mapAll(in.Added, f)
		}
	}
	for i := range ch.Between {
		ch.Between[i].mapStrings(f)
	}
	if ch.Workaround != nil {
		ch.Workaround.mapStrings(f)
	}
	for _, b := range ch.Benchmarks {
		b.MapStrings(f)
	}
}

func (st *Step) mapStrings(f func(string) string) {
	st.CallID, st.Role, st.Command, st.program = f(st.CallID), Role(f(string(st.Role))), f(st.Command), f(st.program)
}

func (t *Timeline) mapStrings(f func(string) string) {
	t.Target, t.Label, t.Unit, t.Better = f(t.Target), f(t.Label), f(t.Unit), f(t.Better)
	mapContext(t.Context, f)
	for _, b := range t.Points {
		b.MapStrings(f)
	}
	for _, b := range []*Bench{t.First, t.Best, t.Last, t.Baseline} {
		if b != nil {
			b.MapStrings(f)
		}
	}
}

// MapStrings replaces each text of the number that came from a transcript
// with f of it.
func (b *Bench) MapStrings(f func(string) string) {
	b.Session.mapStrings(f)
	for _, p := range []*string{&b.CallID, &b.Target, &b.Label, &b.Unit, &b.Text, &b.Source} {
		*p = f(*p)
	}
	mapContext(b.Context, f)
}

// mapContext replaces each key and value of a number's context with f of
// it.
func mapContext(ctx map[string]string, f func(string) string) {
	var renamed []string // old key, new key, value
	for k, v := range ctx {
		if nk := f(k); nk != k {
			renamed = append(renamed, k, nk, f(v))
		} else {
			ctx[k] = f(v)
		}
	}
	for i := 0; i < len(renamed); i += 3 {
		delete(ctx, renamed[i])
	}
	for i := 0; i < len(renamed); i += 3 {
		ctx[renamed[i+1]] = renamed[i+2]
	}
}

// mapAll replaces each string of list with f of it.
func mapAll(list []string, f func(string) string) {
	for i, s := range list {
		list[i] = f(s)
	}
}
