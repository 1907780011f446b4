package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"lupilab/models/datasets"
)

// sourcePath matches what points into the source tree: a Markdown file, a
// Go or JavaScript file, a directory of the repository or a package's
// import path.
var sourcePath = regexp.MustCompile(`\.md\b|\b\w+\.(go|js)\b|\b(models|docs|scripts|cmd|app|web|wasm|browsertest|lupilab)/\w`)

// TestTextsDoNotCiteTheSource reads every string of the UI (app/) and of the
// packages whose words reach it — the models' warnings and notes, the
// experiments' tables, the catalogue's help, the workers' errors (models/)
// — and fails on text that sends a user into the repository
// ("(models/twin/RESULTS.md)"): the page should say the fact, or point to
// its own Learn, Papers or About page. A string without a space is not
// text but a path the code uses ("/web/datasets/index.json") and is not
// looked at; import paths and comments neither.
func TestTextsDoNotCiteTheSource(t *testing.T) {
	files := 0
	for _, root := range []string{".", "../models"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			files++
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			imports := map[*ast.BasicLit]bool{}
			for _, im := range f.Imports {
				imports[im.Path] = true
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING || imports[lit] {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil || !strings.Contains(s, " ") {
					return true
				}
				if m := sourcePath.FindString(s); m != "" {
					t.Errorf("%s: user-facing text cites the source tree (%q): %q", fset.Position(lit.Pos()), m, s)
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 100 {
		t.Fatalf("read %d files: not the whole tree", files)
	}
	// the shipped datasets' words, which the data panel shows
	b, err := os.ReadFile("../web/datasets/" + datasets.IndexFile)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := datasets.ParseIndex(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range idx {
		for _, s := range []string{e.Title, e.Description, e.Source, e.Licence, e.Blocks} {
			if m := sourcePath.FindString(s); m != "" {
				t.Errorf("dataset %s: its description cites the source tree (%q): %q", e.Name, m, s)
			}
		}
	}
}
