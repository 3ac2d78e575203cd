package analyzer

import (
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/retrace-dev/retrace/parser"
)

// fill sets every string reachable from v to "text", through pointers,
// slices (one element), maps (one entry) and struct fields, exported or
// not; it leaves nil the unexported pointers to calls and failures, which
// alias what the report holds elsewhere.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("text")
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		fill(v.Elem())
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k)
		fill(e)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[parser.Pos]() {
			v.Field(0).SetString("path")
			return
		}
		for i := range v.NumField() {
			sf := v.Type().Field(i)
			fv := v.Field(i)
			if !sf.IsExported() {
				if sf.Type.Kind() == reflect.Pointer || sf.Type.Kind() == reflect.Slice && sf.Type.Elem().Kind() == reflect.Pointer {
					continue
				}
				fv = reflect.NewAt(fv.Type(), unsafe.Pointer(fv.UnsafeAddr())).Elem()
			}
			if sf.Name == "Path" {
				fv.SetString("path")
				continue
			}
			if fv.Type().PkgPath() == "time" {
				continue
			}
			fill(fv)
		}
	}
}

// unmapped returns the paths to the strings reachable from v that are
// neither mapped nor the names of inputs.
func unmapped(v reflect.Value, at string, out *[]string) {
	switch v.Kind() {
	case reflect.String:
		if v.Type() == reflect.TypeFor[parser.Kind]() || v.Type() == reflect.TypeFor[parser.Background]() {
			return // retrace's own words for a tool and a way of running, never read from a record
		}
		if s := v.String(); s != "mapped" && s != "path" {
			*out = append(*out, at+" = "+s)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			unmapped(v.Elem(), at, out)
		}
	case reflect.Slice:
		for i := range v.Len() {
			unmapped(v.Index(i), at+"[]", out)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			unmapped(k, at+" key", out)
			unmapped(v.MapIndex(k), at+"[k]", out)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			unmapped(v.Field(i), at+"."+v.Type().Field(i).Name, out)
		}
	}
}

// TestMapStrings fills every text a session report and a lesson can hold
// and checks that MapStrings reaches each one, so that a field added later
// cannot escape masking.
func TestMapStrings(t *testing.T) {
	var r SessionReport
	fill(reflect.ValueOf(&r).Elem())
	var l Lesson
	fill(reflect.ValueOf(&l).Elem())
	f := func(string) string { return "mapped" }
	r.MapStrings(f)
	l.MapStrings(f)
	var missed []string
	unmapped(reflect.ValueOf(r), "SessionReport", &missed)
	unmapped(reflect.ValueOf(l), "Lesson", &missed)
	for _, m := range missed {
		t.Errorf("MapStrings does not reach %s", m)
	}
	if len(r.Failures) == 0 || len(r.Failures[0].excerpt) == 0 || !strings.HasPrefix(r.Failures[0].excerpt[0], "mapped") {
		t.Error("the test did not fill a failure's excerpt")
	}
}
