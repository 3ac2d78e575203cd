package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// forbidden lists, for each package of the module, the packages its
// production code must not import: the layers run one way (parser, then
// the analysis rooms, then analyzer, then report, then the command), and
// a room does not read another's vocabulary where it has no business.
// A path ending in "/" stands for a package and every package under it.
var forbidden = map[string][]string{
	"parser":   {"shell", "bench", "diagnose", "analyzer", "report"},
	"shell":    {"parser", "bench", "diagnose", "analyzer", "report"},
	"bench":    {"diagnose", "analyzer", "report"},
	"diagnose": {"bench", "analyzer", "report"},
	"analyzer": {"report"},
}

// onlyUnder lists imports that only the packages under the folders named
// may have: gjson is the parser's JSON dialect. internal/guard reads hook
// payloads and its store's lines with it still; it is to read them as the
// parser reads JSON, and leave this list.
var onlyUnder = map[string][]string{"github.com/tidwall/gjson": {"parser/", "internal/guard/"}}

// TestLayers reads the imports of every package's production files and
// checks them against forbidden and onlyUnder.
func TestLayers(t *testing.T) {
	const module = "github.com/retrace-dev/retrace/"
	root := filepath.Join("..", "..")
	imports := map[string][]string{} // package folder → imports
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != root) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			imports[filepath.ToSlash(dir)] = append(imports[filepath.ToSlash(dir)], p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < 5 {
		t.Fatalf("read the imports of %d packages only", len(imports))
	}
	for dir, list := range imports {
		for _, p := range list {
			if under, ok := onlyUnder[p]; ok && !slices.ContainsFunc(under, func(u string) bool { return strings.HasPrefix(dir+"/", u) }) {
				t.Errorf("%s imports %s, which only %s may", dir, p, strings.Join(under, " and "))
			}
			own, ok := strings.CutPrefix(p, module)
			if !ok {
				continue
			}
			for pkg, no := range forbidden {
				if dir != pkg && !strings.HasPrefix(dir, pkg+"/") {
					continue
				}
				if slices.ContainsFunc(no, func(n string) bool { return own == n || strings.HasPrefix(own, n+"/") }) {
					t.Errorf("%s imports %s", dir, own)
				}
			}
		}
	}
}
