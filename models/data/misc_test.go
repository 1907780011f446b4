package data

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

func TestFormatOf(t *testing.T) {
	for path, want := range map[string]string{"a.csv": "csv", "b.TSV": "csv", "c.arff": "arff", "d.libsvm": "libsvm", "e.svm": "libsvm", "f.xlsx": ""} {
		if got := FormatOf(path); got != want {
			t.Errorf("FormatOf(%q) = %q, want %q", path, got, want)
		}
	}
	if _, err := ReadFile("testdata/nothing.xlsx", ReadOptions{}); err == nil {
		t.Error("unknown extension: no error")
	}
	if _, err := ReadFile("testdata/missing.csv", ReadOptions{}); err == nil {
		t.Error("missing file: no error")
	}
	if _, err := Read(strings.NewReader("x"), "json", ReadOptions{}); err == nil {
		t.Error("unknown format: no error")
	}
}

func TestParseErrorText(t *testing.T) {
	e := &ParseError{File: "a.csv", Line: 3, Col: 2, Msg: "bad"}
	if got := e.Error(); got != "data: a.csv: line 3, column 2: bad" {
		t.Errorf("%q", got)
	}
	e = &ParseError{Msg: "empty"}
	if got := e.Error(); got != "data: empty" {
		t.Errorf("%q", got)
	}
}

func TestFromIndexChecks(t *testing.T) {
	csv, _ := os.ReadFile("testdata/good.csv")
	e := IndexEntry{Name: "g", Kind: KindLUPI, File: "good.csv", Rows: 4, XColumns: 2, ZColumns: 1, Source: "s", Licence: "l"}
	ds, err := FromIndex(e, csv)
	if err != nil || ds.Provenance.Source != "s" || ds.Name != "g" {
		t.Fatalf("%v", err)
	}
	e.Rows = 5
	if _, err := FromIndex(e, csv); err == nil {
		t.Error("row mismatch: no error")
	}
	e.Rows, e.Kind = 4, KindTwoView
	if ds, err := FromIndex(e, csv); err != nil || ds.Kind != KindTwoView {
		t.Errorf("two-view kind from the index: %v", err)
	}
	e.Kind = KindMultiLabel
	if _, err := FromIndex(e, csv); err == nil {
		t.Error("kind mismatch: no error")
	}
	fsys := fstest.MapFS{
		"index.json": {Data: []byte(`[{"name":"g","kind":"lupi","file":"../good.csv","rows":4}]`)},
	}
	if _, err := LoadShippedFS(fsys, "g"); err == nil {
		t.Error("path escaping the directory: no error")
	}
	fsys["index.json"] = &fstest.MapFile{Data: []byte(`not json`)}
	if _, err := LoadShippedFS(fsys, "g"); err == nil {
		t.Error("bad index: no error")
	}
}

func TestDescribe(t *testing.T) {
	ds, _ := MultiLabel2D(20, 0, 1)
	s := Describe(ds)
	if s.Rows != 20 || len(s.TagCounts) != 4 || !strings.Contains(s.String(), "4 tags") {
		t.Errorf("%+v %s", s, s)
	}
	l, _ := LUPI2D(20, 0, 1)
	if got := Describe(l).String(); !strings.Contains(got, "2 main + 3 second-block features, 2 classes") {
		t.Errorf("%s", got)
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, &Dataset{}); err == nil {
		t.Error("WriteCSV of an empty dataset: no error")
	}
}

// TestStandardScalerHugeValues: standardising values near 1e308 (whose
// squares overflow) still gives unit deviation (issue 29: lupi fit
// -scale must bring such data into range, not leave it unscaled).
func TestStandardScalerHugeValues(t *testing.T) {
	x := mat.NewDense(4, 1, []float64{1e200, -1e200, 3e200, 1e308})
	ds := &Dataset{X: x, Y: []int{0, 1, 0, 1}, Classes: []string{"a", "b"}}
	sc, err := FitScaler(ds, ScaleStandard)
	if err != nil {
		t.Fatal(err)
	}
	out, err := sc.Transform(ds)
	if err != nil {
		t.Fatal(err)
	}
	col := mat.Col(nil, 0, out.X)
	mean, sd := stat.PopMeanStdDev(col, nil)
	if math.Abs(mean) > 1e-12 || math.Abs(sd-1) > 1e-12 {
		t.Errorf("standardised: mean %v, sd %v", mean, sd)
	}
}

// TestUnprefixNamesRoundTrip: names without a role prefix written by
// WriteCSV come back as they were; numbered columns keep their prefix.
func TestUnprefixNamesRoundTrip(t *testing.T) {
	ds := &Dataset{Name: "t", X: mat.NewDense(4, 3, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3}),
		XNames: []string{"f1", "x_2", "x_sepal"}, Y: []int{0, 1, 0, 1}, Classes: []string{"a", "b"}}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, ds); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCSV(&buf, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(back.XNames, ","); got != "x_f1,x_2,x_sepal" {
		t.Fatalf("read back: %s", got)
	}
	UnprefixNames(back)
	if got := strings.Join(back.XNames, ","); got != "f1,x_2,sepal" {
		t.Errorf("unprefixed: %s, want f1,x_2,sepal", got)
	}
	clash := &Dataset{XNames: []string{"x_a", "a"}}
	UnprefixNames(clash)
	if got := strings.Join(clash.XNames, ","); got != "x_a,a" {
		t.Errorf("clashing names: %s", got)
	}
}
