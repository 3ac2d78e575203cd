package rawjson

import (
	"iter"
	"strings"
)

// maxFields is the most names a Names holds.
const maxFields = 32

// Names are the names of the members of an object that a decoder reads,
// each at its index: the decoder declares them once, with a constant for
// each index, and picks them out of each object in one walk (see Pick and
// Doc.Record), where asking for each by its name would walk the object once
// per name.
type Names struct {
	list   []string
	byLen  [][]int8 // byLen[n]: the indexes of the names n bytes long
	nest   []int8   // nest[i]: the index in nested of the Names of member i's object, or -1
	nested []*Names
}

// NewNames returns the Names of the members names, in that order. It
// panics when there are more than 32 names or a name repeats: the names
// are the decoder's own, declared once.
func NewNames(names ...string) *Names {
	if len(names) > maxFields {
		panic("rawjson: more than 32 names")
	}
	n := &Names{list: names, nest: make([]int8, len(names))}
	for i, name := range names {
		for len(n.byLen) <= len(name) {
			n.byLen = append(n.byLen, nil)
		}
		for _, j := range n.byLen[len(name)] {
			if names[j] == name {
				panic("rawjson: name " + name + " repeats")
			}
		}
		n.byLen[len(name)] = append(n.byLen[len(name)], int8(i))
		n.nest[i] = -1
	}
	return n
}

// Nest returns a copy of n that, in Doc.Record, picks the members that
// inner names out of the object of member i, in the same pass. Record
// follows the nests of the Names it is given, not those of the Names
// nested in them.
func (n *Names) Nest(i int, inner *Names) *Names {
	c := *n
	c.nest = append([]int8(nil), n.nest...)
	c.nest[i] = int8(len(n.nested))
	c.nested = append(append([]*Names(nil), n.nested...), inner)
	return &c
}

// index returns the index of the name a raw key (between its quotes)
// names, reading its escapes as gjson does, or -1.
func (n *Names) index(key string) int {
	if i := n.lookup(key); i >= 0 || strings.IndexByte(key, '\\') < 0 {
		return i
	}
	return n.lookup(unquoteBody(key))
}

// lookup returns the index of name, or -1.
func (n *Names) lookup(name string) int {
	if len(name) < len(n.byLen) {
		for _, i := range n.byLen[len(name)] {
			if n.list[i] == name {
				return int(i)
			}
		}
	}
	return -1
}

// Fields holds the members of one object that a Names names: Get(i) is
// the value of the first member named the i-th name.
type Fields struct {
	obj   Value // the object, and the Doc of all the values
	names *Names
	raws  [maxFields]string // the text of the values
	dups  uint32            // bit i: a later member has the i-th name too
}

// Object returns the object the members were picked out of.
func (f *Fields) Object() Value { return f.obj }

// Get returns the value of the first member of the object with the i-th
// name; Missing when there is none.
func (f *Fields) Get(i int) Value {
	if f.raws[i] == "" {
		return Value{}
	}
	return Value{f.raws[i], f.obj.doc}
}

// Path returns the value at a path below the member with the i-th name,
// as Value.Path of the object, with that name first, finds it: a later
// member of that name is looked into only when the first does not hold
// the path.
func (f *Fields) Path(i int, path ...string) Value {
	if v := f.Get(i).Path(path...); v.Exists() || f.dups&(1<<i) == 0 {
		return v
	}
	return f.obj.Path(append([]string{f.names.list[i]}, path...)...)
}

// reset empties f for the members of obj that n names.
func (f *Fields) reset(obj Value, n *Names) {
	f.obj, f.names, f.dups = obj, n, 0
	clear(f.raws[:len(n.list)])
}

// of makes the values in f values of d.
func (f *Fields) of(d *Doc) { f.obj.doc = d }

// want returns the index of the name a member's raw key names, when the
// member is the first of that name; else -1.
func (f *Fields) want(key string) int {
	i := f.names.index(key)
	if i >= 0 && f.raws[i] != "" {
		f.dups |= 1 << i
		return -1
	}
	return i
}

// pick stores in f the members of the object that starts at s[i] that
// f's Names name, and returns the index after the object.
func (d *Doc) pick(s string, i int, f *Fields) int {
	return d.eachMember(s, i, func(key, val string) bool {
		if k := f.want(key); k >= 0 {
			f.raws[k] = val
		}
		return true
	})
}

// Pick stores in f the members of v that n names, in one walk of v. f is
// emptied first; it stays empty when v is no object.
func (v Value) Pick(n *Names, f *Fields) {
	f.reset(v, n)
	if v.Kind() == Object {
		v.doc.pick(v.raw, 0, f)
	}
}

// PickEach yields what Values yields, and stores in f, before it yields a
// value, what Pick of that value stores. The members of an array's
// element are picked in the walk that finds where it ends.
func (v Value) PickEach(n *Names, f *Fields) iter.Seq[Value] {
	return func(yield func(Value) bool) { v.pickEach(n, f, yield) }
}

// pickEach does what the iterator of PickEach does.
func (v Value) pickEach(n *Names, f *Fields, yield func(Value) bool) {
	if v.Kind() != Array {
		v.eachValue(func(e Value) bool {
			e.Pick(n, f)
			return yield(e)
		})
		return
	}
	s, d := v.raw, v.doc
	for i := skipBlank(s, 1); i < len(s) && s[i] != ']'; {
		var end int
		if s[i] == '{' {
			f.reset(Value{}, n)
			end = d.pick(s, i, f)
			f.obj = Value{s[i:end], d}
		} else {
			var ok bool
			if end, ok = d.endValue(s, i); !ok {
				return
			}
			f.reset(Value{s[i:end], d}, n)
		}
		if !yield(Value{s[i:end], d}) {
			return
		}
		var ok bool
		if i, ok = next(s, end); !ok {
			return
		}
	}
}
