package data

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func mustRead(t *testing.T, name string, opt ReadOptions) *Dataset {
	t.Helper()
	ds, err := ReadFile(filepath.Join("testdata", name), opt)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return ds
}

func row(m interface{ RawRowView(int) []float64 }, i int) []float64 {
	return append([]float64(nil), m.RawRowView(i)...)
}

func TestReadCSVGood(t *testing.T) {
	ds := mustRead(t, "good.csv", ReadOptions{})
	if ds.Name != "good" || ds.Kind != KindLUPI || ds.Rows() != 4 || ds.Dim() != 2 || ds.ZDim() != 1 {
		t.Fatalf("got %v", Describe(ds))
	}
	if !reflect.DeepEqual(ds.XNames, []string{"x_a", "x_b"}) || !reflect.DeepEqual(ds.ZNames, []string{"z_c"}) {
		t.Errorf("names %v %v", ds.XNames, ds.ZNames)
	}
	// Non-numeric labels: order of first appearance.
	if !reflect.DeepEqual(ds.Classes, []string{"cat", "dog", "bird"}) || !reflect.DeepEqual(ds.Y, []int{0, 1, 0, 2}) {
		t.Errorf("classes %v y %v", ds.Classes, ds.Y)
	}
	if got := row(ds.X, 1); !reflect.DeepEqual(got, []float64{-3, 0.4}) {
		t.Errorf("row 2 = %v", got)
	}
	if got := row(ds.X, 3); !reflect.DeepEqual(got, []float64{7, 0.25}) {
		t.Errorf("row 4 = %v", got)
	}
	ds = mustRead(t, "good.csv", ReadOptions{Kind: KindTwoView})
	if ds.Kind != KindTwoView {
		t.Errorf("kind %s", ds.Kind)
	}
}

func TestReadCSVNumericLabels(t *testing.T) {
	ds := mustRead(t, "numeric_labels.csv", ReadOptions{})
	// "+1" and "1.0" are one class; numeric order puts −1 first (↦ −1).
	if !reflect.DeepEqual(ds.Classes, []string{"-1", "1"}) || !reflect.DeepEqual(ds.Y, []int{1, 0, 1, 0}) {
		t.Fatalf("classes %v y %v", ds.Classes, ds.Y)
	}
	if ds.Kind != KindPlain || ds.Dim() != 2 {
		t.Errorf("kind %s dim %d (unknown columns must default to main)", ds.Kind, ds.Dim())
	}
	y, _ := ds.BinaryY()
	if !reflect.DeepEqual(y, []float64{1, -1, 1, -1}) {
		t.Errorf("binary y %v", y)
	}
}

func TestReadCSVVariants(t *testing.T) {
	ds := mustRead(t, "multilabel.csv", ReadOptions{})
	if ds.Kind != KindMultiLabel || ds.Y != nil || ds.NumTags() != 3 || ds.Tags.At(1, 2) != 1 || ds.Tags.At(2, 0) != 0 {
		t.Fatalf("multilabel: %v", Describe(ds))
	}
	for _, f := range []string{"tabs.tsv", "semicolon.csv"} {
		ds := mustRead(t, f, ReadOptions{})
		if ds.Rows() != 2 || ds.Dim() != 2 || ds.X.At(1, 1) != 4 || ds.Classes[1] != "b" {
			t.Errorf("%s: %v %v", f, Describe(ds), ds.Classes)
		}
	}
	ds = mustRead(t, "quoted.csv", ReadOptions{})
	if ds.XNames[1] != "x 2" || ds.Classes[1] != "b, c" || ds.X.At(0, 1) != 2 {
		t.Errorf("quoted: %v %v", ds.XNames, ds.Classes)
	}
}

func TestReadCSVRoles(t *testing.T) {
	opt := ReadOptions{Roles: map[string]Role{"x_a": RoleSecond, "z_c": RoleIgnore, "x_b": RoleMain}}
	ds := mustRead(t, "good.csv", opt)
	if !reflect.DeepEqual(ds.XNames, []string{"x_b"}) || !reflect.DeepEqual(ds.ZNames, []string{"x_a"}) {
		t.Fatalf("roles: %v %v", ds.XNames, ds.ZNames)
	}
	// The class can be moved to another column (and the old one made a feature).
	opt = ReadOptions{Roles: map[string]Role{"label": RoleIgnore, "z_c": RoleClass}}
	ds = mustRead(t, "good.csv", opt)
	if len(ds.Classes) != 4 || ds.ZDim() != 0 {
		t.Fatalf("class remap: %v", Describe(ds))
	}
	for _, bad := range []map[string]Role{
		{"nope": RoleMain},
		{"x_a": "weird"},
		{"x_a": RoleClass}, // two class columns
	} {
		if _, err := ReadFile("testdata/good.csv", ReadOptions{Roles: bad}); err == nil {
			t.Errorf("roles %v: no error", bad)
		}
	}
}

func TestReadBadFiles(t *testing.T) {
	cases := []struct {
		file      string
		opt       ReadOptions
		line, col int
		msg       string
	}{
		{"bad_ragged.csv", ReadOptions{}, 3, 3, "ragged"},
		{"bad_nonnumber.csv", ReadOptions{}, 3, 2, "not a number"},
		{"bad_nan.csv", ReadOptions{}, 3, 2, "not a finite"},
		{"bad_inf.csv", ReadOptions{}, 3, 2, "not a finite"},
		{"bad_overflow.csv", ReadOptions{}, 3, 2, "out of the range"},
		{"bad_empty.csv", ReadOptions{}, 0, 0, "no data rows"},
		{"bad_header_only.csv", ReadOptions{}, 0, 0, "no data rows"},
		{"bad_oneclass.csv", ReadOptions{}, 0, 0, "only one class"},
		{"bad_duplicate.csv", ReadOptions{}, 1, 2, "duplicate"},
		{"bad_tag.csv", ReadOptions{}, 2, 2, "not 0 or 1"},
		{"bad_missing.csv", ReadOptions{}, 2, 2, "missing"},
		{"bad_quote.csv", ReadOptions{}, 3, 0, "quote"},
		{"good.csv", ReadOptions{MaxRows: 3}, 5, 0, "limit of 3 rows"},
		{"good.csv", ReadOptions{MaxCols: 3}, 1, 0, "limit of 3"},
		{"good.csv", ReadOptions{MaxBytes: 20}, 0, 0, "larger than the limit"},
		{"good.csv", ReadOptions{MaxCells: 10}, 4, 0, "limit of 10 cells"},
		{"bad_order.libsvm", ReadOptions{}, 2, 3, "must increase"},
		{"bad_index.libsvm", ReadOptions{}, 2, 2, "positive integer"},
		{"bad_nan.libsvm", ReadOptions{}, 2, 2, "not a finite"},
		{"bad_pair.libsvm", ReadOptions{}, 2, 2, "index:value"},
		{"bad_oneclass.libsvm", ReadOptions{}, 0, 0, "only one class"},
		{"bad_empty.libsvm", ReadOptions{}, 0, 0, "no data rows"},
		{"good.libsvm", ReadOptions{MaxCols: 3}, 6, 2, "limit of 3 columns"},
		{"good.libsvm", ReadOptions{MaxCells: 10}, 0, 0, "cells"},
		{"good.libsvm", ReadOptions{MaxRows: 2}, 4, 0, "limit of 2 rows"},
		{"bad_z_labels_main.libsvm", ReadOptions{ZPath: "testdata/bad_z_labels.libsvm"}, 2, 1, "differs"},
		{"good.csv", ReadOptions{Format: "libsvm", ZPath: "testdata/good_z.libsvm"}, 0, 0, "no features"},
		{"good.libsvm", ReadOptions{ZPath: "testdata/bad_z_labels.libsvm"}, 0, 0, "Z file: 3 samples"},
		{"bad_ragged.arff", ReadOptions{}, 6, 2, "ragged"},
		{"bad_nonnumber.arff", ReadOptions{}, 6, 1, "not a number"},
		{"bad_nominal.arff", ReadOptions{}, 6, 2, "not one of the values"},
		{"bad_duplicate.arff", ReadOptions{}, 3, 0, "duplicate"},
		{"bad_nodata.arff", ReadOptions{}, 0, 0, "no @data"},
		{"bad_missing.arff", ReadOptions{}, 6, 1, "missing"},
		{"bad_oneclass.arff", ReadOptions{}, 0, 0, "only one class"},
		{"bad_sparse.arff", ReadOptions{}, 6, 2, "must increase"},
		{"bad_type.arff", ReadOptions{}, 2, 0, "unknown type"},
		{"weather.arff", ReadOptions{}, 9, 0, "string"},
		{"weather.arff", ReadOptions{MaxRows: 2, Roles: map[string]Role{"class_note": RoleIgnore}}, 14, 0, "limit of 2 rows"},
		{"meka.arff", ReadOptions{ARFFLabels: []string{"nope"}}, 0, 0, "not declared"},
		{"meka.arff", ReadOptions{ARFFLabelCount: 9}, 0, 0, "label attributes"},
	}
	for _, c := range cases {
		_, err := ReadFile(filepath.Join("testdata", c.file), c.opt)
		if err == nil {
			t.Errorf("%s %+v: no error", c.file, c.opt)
			continue
		}
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%s: %v is not a *ParseError", c.file, err)
			continue
		}
		if pe.Line != c.line || (c.col != 0 && pe.Col != c.col) || !strings.Contains(pe.Msg, c.msg) {
			t.Errorf("%s: got line %d col %d %q; want line %d col %d containing %q", c.file, pe.Line, pe.Col, pe.Msg, c.line, c.col, c.msg)
		}
		// A problem of the Z file names the Z file (issue 29), any other
		// the main file.
		file := c.file
		if strings.HasPrefix(pe.Msg, "Z file") {
			file = filepath.Base(c.opt.ZPath)
		}
		if !strings.Contains(err.Error(), file) {
			t.Errorf("%s: error %q does not name the file %s", c.file, err, file)
		}
	}
}

func TestAllowOneClass(t *testing.T) {
	ds := mustRead(t, "bad_oneclass.csv", ReadOptions{AllowOneClass: true})
	if len(ds.Classes) != 1 || ds.Rows() != 2 {
		t.Fatalf("%v", Describe(ds))
	}
}

func TestReadLIBSVM(t *testing.T) {
	ds := mustRead(t, "good.libsvm", ReadOptions{})
	if ds.Rows() != 4 || ds.Dim() != 4 || !reflect.DeepEqual(ds.Classes, []string{"-1", "1"}) || !reflect.DeepEqual(ds.Y, []int{1, 0, 1, 0}) {
		t.Fatalf("%v %v %v", Describe(ds), ds.Classes, ds.Y)
	}
	want := [][]float64{{0.5, 0, -2, 0}, {0, 1e-3, 0, 0}, {1, 2, 3, 0}, {0, 0, 0, 7}}
	for i, w := range want {
		if got := row(ds.X, i); !reflect.DeepEqual(got, w) {
			t.Errorf("row %d = %v, want %v", i+1, got, w)
		}
	}
	// With a Z file.
	ds, err := ReadFile("testdata/bad_z_labels.libsvm", ReadOptions{ZPath: "testdata/bad_z_labels.libsvm", Kind: KindTwoView})
	if err != nil || ds.ZDim() != 2 || ds.Kind != KindTwoView || ds.ZNames[0] != "z_1" {
		t.Fatalf("z file: %v %v", err, Describe(ds))
	}
	f, _ := os.Open("testdata/good.libsvm")
	defer f.Close()
	zr, _ := os.Open("testdata/good_z.libsvm")
	defer zr.Close()
	ds, err = ReadLIBSVM(f, ReadOptions{Z: zr})
	if err != nil || ds.ZDim() != 2 || ds.Kind != KindLUPI || ds.Z.At(2, 1) != 0.5 {
		t.Errorf("Z reader with labels 1 / +1 / 1.0: %v", err)
	}
	ml := mustRead(t, "multilabel.libsvm", ReadOptions{})
	if ml.Kind != KindMultiLabel || !reflect.DeepEqual(ml.TagNames, []string{"tag_1", "tag_2", "tag_3"}) {
		t.Fatalf("multilabel: %v %v", Describe(ml), ml.TagNames)
	}
	wantTags := [][]float64{{1, 0, 1}, {0, 1, 0}, {0, 0, 0}, {0, 1, 1}}
	for i, w := range wantTags {
		if got := row(ml.Tags, i); !reflect.DeepEqual(got, w) {
			t.Errorf("tags row %d = %v, want %v", i+1, got, w)
		}
	}
}

func TestReadARFF(t *testing.T) {
	ds := mustRead(t, "weather.arff", ReadOptions{Roles: map[string]Role{"class_note": RoleIgnore}})
	// outlook (3 values) → 3 one-hot columns; windy (2 values) → 1 column.
	wantNames := []string{"outlook=sunny", "outlook=overcast", "outlook=rainy", "temperature", "humidity", "windy"}
	if !reflect.DeepEqual(ds.XNames, wantNames) || !reflect.DeepEqual(ds.Classes, []string{"no", "yes"}) || ds.Rows() != 5 {
		t.Fatalf("%v %v %v", ds.XNames, ds.Classes, Describe(ds))
	}
	if got := row(ds.X, 2); !reflect.DeepEqual(got, []float64{0, 1, 0, 83, 86, 1}) {
		t.Errorf("row 3 = %v", got)
	}
	// The string attribute as the class.
	ds = mustRead(t, "weather.arff", ReadOptions{ARFFLabels: []string{"class_note"}, Roles: map[string]Role{"play golf": RoleMain}})
	if ds.Classes[2] != "y, z" || ds.Classes[0] != "hot day" || ds.Dim() != 7 {
		t.Errorf("string class: %v %v", ds.Classes, ds.XNames)
	}

	sp := mustRead(t, "sparse.arff", ReadOptions{})
	if sp.Kind != KindLUPI || sp.Dim() != 2 || sp.ZDim() != 1 || !reflect.DeepEqual(sp.Classes, []string{"pos", "neg"}) {
		t.Fatalf("sparse: %v %v", Describe(sp), sp.Classes)
	}
	wantX := [][]float64{{1.5, 0}, {0, 2}, {0, 0}, {-1, 1}}
	wantY := []string{"pos", "neg", "neg", "pos"}
	for i := range wantX {
		if got := row(sp.X, i); !reflect.DeepEqual(got, wantX[i]) || sp.Classes[sp.Y[i]] != wantY[i] {
			t.Errorf("sparse row %d = %v %s", i+1, got, sp.Classes[sp.Y[i]])
		}
	}
	if sp.Z.At(1, 0) != 0.5 {
		t.Errorf("sparse z = %v", sp.Z.At(1, 0))
	}

	for _, opt := range []ReadOptions{{}, {ARFFLabelCount: 3}, {ARFFLabels: []string{"L1", "L2", "L3"}}} {
		mk := mustRead(t, "meka.arff", opt)
		if mk.Kind != KindMultiLabel || !reflect.DeepEqual(mk.TagNames, []string{"L1", "L2", "L3"}) || mk.Dim() != 2 || mk.Rows() != 4 {
			t.Fatalf("meka %+v: %v", opt, Describe(mk))
		}
		if got := row(mk.Tags, 3); !reflect.DeepEqual(got, []float64{1, 0, 0}) {
			t.Errorf("meka sparse tags %v", got)
		}
	}
	// Last two attributes as labels (negative count).
	mk := mustRead(t, "meka.arff", ReadOptions{ARFFLabelCount: -1})
	if mk.Kind != KindPlain || mk.Dim() != 4 || len(mk.Classes) != 4 {
		t.Errorf("-C -1: %v", Describe(mk))
	}
}

func TestWriteRoundTrip(t *testing.T) {
	for _, name := range []string{"lupi2d", "twoview2d", "multilabel2d", "blobs"} {
		ds, err := GenerateByName(name, 37, 0.3, 5)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteCSV(&buf, ds); err != nil {
			t.Fatal(err)
		}
		kind := ds.Kind
		back, err := ReadCSV(bytes.NewReader(buf.Bytes()), ReadOptions{Name: name, Kind: kind})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if back.Kind != ds.Kind || !mEqual(back.X, ds.X) || (ds.Z != nil && !mEqual(back.Z, ds.Z)) ||
			(ds.Tags != nil && !mEqual(back.Tags, ds.Tags)) || !reflect.DeepEqual(labelsOf(back), labelsOf(ds)) {
			t.Errorf("%s: CSV round trip differs", name)
		}
		var xb, zb bytes.Buffer
		if err := WriteLIBSVM(&xb, &zb, ds); err != nil {
			t.Fatal(err)
		}
		opt := ReadOptions{}
		if ds.Z != nil {
			opt.Z = &zb
		}
		lb, err := ReadLIBSVM(&xb, opt)
		if err != nil {
			t.Fatalf("%s libsvm: %v", name, err)
		}
		if !mEqual(lb.X, ds.X) || (ds.Z != nil && !mEqual(lb.Z, ds.Z)) || (ds.Tags != nil && !mEqual(lb.Tags, ds.Tags)) ||
			(ds.Y != nil && !reflect.DeepEqual(labelsOf(lb), labelsOf(ds))) {
			t.Errorf("%s: LIBSVM round trip differs", name)
		}
	}
}

func labelsOf(ds *Dataset) []string {
	out := make([]string, len(ds.Y))
	for i, c := range ds.Y {
		out[i] = ds.Classes[c]
	}
	return out
}

func mEqual(a, b interface {
	Dims() (int, int)
	At(int, int) float64
}) bool {
	ra, ca := a.Dims()
	rb, cb := b.Dims()
	if ra != rb || ca != cb {
		return false
	}
	for i := 0; i < ra; i++ {
		for j := 0; j < ca; j++ {
			if a.At(i, j) != b.At(i, j) {
				return false
			}
		}
	}
	return true
}

// TestAllowUnlabelled: data to predict may have no class column and no
// tags (issue 29: `lupi predict` on unlabelled files); without the option
// such a file is an error as before.
func TestAllowUnlabelled(t *testing.T) {
	csv := "x_1,x_2,z_1\n1,2,3\n4,5,6\n"
	if _, err := ReadCSV(strings.NewReader(csv), ReadOptions{}); err == nil || !strings.Contains(err.Error(), "no class column") {
		t.Fatalf("unlabelled CSV without the option: %v", err)
	}
	ds, err := ReadCSV(strings.NewReader(csv), ReadOptions{AllowUnlabelled: true, Kind: KindTwoView})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Rows() != 2 || ds.Dim() != 2 || ds.ZDim() != 1 || ds.Y != nil || ds.Tags != nil || ds.Kind != KindTwoView {
		t.Errorf("unlabelled CSV read as %d×%d+%d, Y %v, kind %s", ds.Rows(), ds.Dim(), ds.ZDim(), ds.Y, ds.Kind)
	}
	arff := "@relation r\n@attribute a numeric\n@attribute b numeric\n@data\n1,2\n3,4\n"
	if _, err := ReadARFF(strings.NewReader(arff), ReadOptions{}); err == nil {
		t.Fatal("unlabelled ARFF without the option: no error")
	}
	ds, err = ReadARFF(strings.NewReader(arff), ReadOptions{AllowUnlabelled: true})
	if err != nil || ds.Rows() != 2 || ds.Dim() != 2 || ds.Y != nil {
		t.Errorf("unlabelled ARFF: %v", err)
	}
	if _, err := ReadCSV(strings.NewReader("x_1\nNaN\n"), ReadOptions{AllowUnlabelled: true}); err == nil {
		t.Error("unlabelled data skips the value checks")
	}
}
