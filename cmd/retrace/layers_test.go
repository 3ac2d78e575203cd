package main

import (
	"go/ast"
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
	"parser":   {"shell", "bench", "diagnose", "analyzer", "report", "cmd"},
	"shell":    {"parser", "bench", "diagnose", "analyzer", "report", "cmd"},
	"bench":    {"diagnose", "analyzer", "report", "cmd"},
	"diagnose": {"bench", "analyzer", "report", "cmd"},
	"analyzer": {"report"},
	"report":   {"shell"}, // the report renders what the analysis found; it parses no command
	// The pipeline reads and analyzes; what the command prints, it leaves
	// to the command.
	"internal/pipeline": {"report"},
}

// onlyUnder lists imports that only the packages under the folders named
// may have: gjson is the parser's JSON dialect, behind its rawjson.
var onlyUnder = map[string][]string{"github.com/tidwall/gjson": {"parser/"}}

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

// rendersOnly lists the packages that render what the analysis found and
// call none of its functions (its types' methods, accessors, are theirs to
// call): the analysis packages whose functions they must not call.
var rendersOnly = map[string][]string{"report": {"analyzer", "diagnose", "bench", "shell"}}

// TestRenderersDoNotAnalyze checks that report calls no function of the
// analysis packages: what it shows, the analysis computed.
func TestRenderersDoNotAnalyze(t *testing.T) {
	const module = "github.com/retrace-dev/retrace/"
	root := filepath.Join("..", "..")
	funcs := map[string]map[string]bool{} // package → its functions
	parse := func(dir string, mode parser.Mode) []*ast.File {
		paths, _ := filepath.Glob(filepath.Join(root, dir, "*.go"))
		var files []*ast.File
		for _, p := range paths {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, mode)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		return files
	}
	for pkg, analysis := range rendersOnly {
		for _, a := range analysis {
			funcs[a] = map[string]bool{}
			for _, f := range parse(a, parser.SkipObjectResolution) {
				for _, d := range f.Decls {
					if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.IsExported() {
						funcs[a][fd.Name.Name] = true
					}
				}
			}
		}
		for _, f := range parse(pkg, parser.SkipObjectResolution) {
			names := map[string]string{} // name in the file → package
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				own, ok := strings.CutPrefix(p, module)
				if !ok {
					continue
				}
				name := filepath.Base(own)
				if imp.Name != nil {
					name = imp.Name.Name
				}
				names[name] = own
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); ok && funcs[names[x.Name]][sel.Sel.Name] {
					t.Errorf("%s calls %s.%s", pkg, names[x.Name], sel.Sel.Name)
				}
				return true
			})
		}
	}
}
