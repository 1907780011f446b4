package data

import (
	"math"
	"reflect"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestStratifiedSplit(t *testing.T) {
	ds, _ := Blobs(300, 0.1, 1) // 100 per class
	tr, te, err := StratifiedSplit(ds, 0.7, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tr.ClassCounts(), []int{70, 70, 70}) || !reflect.DeepEqual(te.ClassCounts(), []int{30, 30, 30}) {
		t.Errorf("counts %v %v", tr.ClassCounts(), te.ClassCounts())
	}
	// Disjoint and covering: every original row appears once.
	seen := map[[2]float64]int{}
	for _, part := range []*Dataset{tr, te} {
		for i := 0; i < part.Rows(); i++ {
			seen[[2]float64{part.X.At(i, 0), part.X.At(i, 1)}]++
		}
	}
	if len(seen) != 300 {
		t.Errorf("%d distinct rows after the split", len(seen))
	}
	tr2, _, _ := StratifiedSplit(ds, 0.7, 3)
	tr3, _, _ := StratifiedSplit(ds, 0.7, 4)
	if !mEqual(tr.X, tr2.X) || mEqual(tr.X, tr3.X) {
		t.Error("split not reproducible by seed")
	}
	// Tiny classes keep a row on each side.
	small, _ := Moons(4, 0.1, 1)
	a, b, err := StratifiedSplit(small, 0.9, 1)
	if err != nil || !reflect.DeepEqual(a.ClassCounts(), []int{1, 1}) || !reflect.DeepEqual(b.ClassCounts(), []int{1, 1}) {
		t.Errorf("tiny split: %v %v %v", err, a.ClassCounts(), b.ClassCounts())
	}
	// Multi-label data splits at random.
	ml, _ := MultiLabel2D(50, 0, 1)
	a, b, err = StratifiedSplit(ml, 0.5, 1)
	if err != nil || a.Rows() != 25 || b.Rows() != 25 || a.NumTags() != 4 {
		t.Errorf("multi-label split: %v", err)
	}
	for _, f := range []float64{0, 1, -0.5, math.NaN()} {
		if _, _, err := StratifiedSplit(ds, f, 1); err == nil {
			t.Errorf("fraction %v: no error", f)
		}
	}
}

func TestStratifiedKFold(t *testing.T) {
	y := make([]int, 0, 53)
	for i := 0; i < 53; i++ {
		y = append(y, i%3)
	}
	folds, err := StratifiedKFold(y, 5, 7)
	if err != nil {
		t.Fatal(err)
	}
	var all []int
	for _, f := range folds {
		all = append(all, f...)
		counts := make([]int, 3)
		for _, r := range f {
			counts[y[r]]++
		}
		for _, c := range counts {
			if c < 3 || c > 4 { // 18 or 17 per class over 5 folds
				t.Errorf("fold class counts %v", counts)
			}
		}
		if len(f) < 10 || len(f) > 11 {
			t.Errorf("fold size %d", len(f))
		}
	}
	sort.Ints(all)
	for i, r := range all {
		if r != i {
			t.Fatalf("folds do not partition the rows")
		}
	}
	again, _ := StratifiedKFold(y, 5, 7)
	if !reflect.DeepEqual(folds, again) {
		t.Error("not reproducible")
	}
	if _, err := StratifiedKFold(y, 1, 1); err == nil {
		t.Error("k = 1: no error")
	}
	if _, err := StratifiedKFold([]int{0, 0, 0, 1, 1}, 3, 1); err == nil {
		t.Error("k > class size: no error")
	}
	kf, err := KFold(10, 3, 1)
	if err != nil || len(kf) != 3 || len(kf[0])+len(kf[1])+len(kf[2]) != 10 {
		t.Errorf("KFold: %v %v", kf, err)
	}
	if got := Complement(5, []int{1, 3}); !reflect.DeepEqual(got, []int{0, 2, 4}) {
		t.Errorf("Complement = %v", got)
	}
}

func TestScaler(t *testing.T) {
	train := &Dataset{X: mat.NewDense(4, 3, []float64{
		1, 5, 10,
		2, 5, 20,
		3, 5, 30,
		6, 5, 40,
	}), Z: mat.NewDense(4, 1, []float64{1, 1, 3, 3}), Y: []int{0, 1, 0, 1}, Classes: []string{"a", "b"}}
	test := &Dataset{X: mat.NewDense(1, 3, []float64{4, 7, 0}), Z: mat.NewDense(1, 1, []float64{2}), Y: []int{0}, Classes: []string{"a", "b"}}
	s, err := FitScaler(train, ScaleStandard)
	if err != nil {
		t.Fatal(err)
	}
	// Column 1: mean 3, population sd sqrt(3.5); column 2 constant → scale 1.
	if math.Abs(s.XShift[0]-3) > 1e-15 || math.Abs(s.XScale[0]-math.Sqrt(3.5)) > 1e-15 || s.XScale[1] != 1 {
		t.Errorf("scaler %+v", s)
	}
	tr := s.Apply(train)
	for j := 0; j < 3; j++ {
		col := mat.Col(nil, j, tr.X)
		var m, v float64
		for _, x := range col {
			m += x / 4
		}
		for _, x := range col {
			v += (x - m) * (x - m) / 4
		}
		want := 1.0
		if j == 1 {
			want = 0
		}
		if math.Abs(m) > 1e-12 || math.Abs(v-want) > 1e-12 {
			t.Errorf("column %d: mean %v var %v", j, m, v)
		}
	}
	te := s.Apply(test)
	if got := te.X.At(0, 0); math.Abs(got-1/math.Sqrt(3.5)) > 1e-15 {
		t.Errorf("test uses training statistics: %v", got)
	}
	if te.X.At(0, 1) != 2 || te.Z.At(0, 0) != 0 {
		t.Errorf("constant column / Z: %v %v", te.X.At(0, 1), te.Z.At(0, 0))
	}
	if train.X.At(0, 0) != 1 {
		t.Error("Apply modified its input")
	}
	mm, _ := FitScaler(train, ScaleMinMax)
	trm := mm.Apply(train)
	if mat.Min(trm.X) != 0 || mat.Max(trm.X) != 1 || trm.X.At(1, 0) != 0.2 {
		t.Errorf("minmax: %v", mat.Formatted(trm.X))
	}
	if _, err := FitScaler(train, "log"); err == nil {
		t.Error("unknown method: no error")
	}
	wrong := &Dataset{X: mat.NewDense(1, 2, nil), Y: []int{0}, Classes: []string{"a"}}
	if _, err := s.Transform(wrong); err == nil || s.Apply(wrong) != nil {
		t.Error("dimension mismatch: no error")
	}
	x := []float64{3, 5, 25}
	s.ApplyRow(x)
	if x[0] != 0 || x[1] != 0 {
		t.Errorf("ApplyRow %v", x)
	}
}

func TestTaskBuilders(t *testing.T) {
	ds, _ := Blobs(30, 0.1, 1)
	b, err := OneVsOne(ds, "2", "0")
	if err != nil {
		t.Fatal(err)
	}
	if b.Rows() != 20 || !reflect.DeepEqual(b.Classes, []string{"2", "0"}) || !reflect.DeepEqual(b.ClassCounts(), []int{10, 10}) {
		t.Errorf("OvO: %v %v", b.Classes, b.ClassCounts())
	}
	for i := 0; i < b.Rows(); i++ {
		// Class "2" is centred at 330°, "0" at 90°: x₂ separates them.
		if (b.X.At(i, 1) > 0.5) != (b.Y[i] == 1) {
			t.Fatalf("OvO row %d mislabelled", i)
		}
	}
	r, err := OneVsRest(ds, "1")
	if err != nil || r.Rows() != 30 || !reflect.DeepEqual(r.ClassCounts(), []int{20, 10}) || r.Classes[1] != "1" {
		t.Errorf("OvR: %v %v", err, r.ClassCounts())
	}
	if len(OneVsOnePairs(ds)) != 3 {
		t.Error("pairs")
	}
	if _, err := OneVsOne(ds, "0", "0"); err == nil {
		t.Error("same class: no error")
	}
	if _, err := OneVsOne(ds, "0", "9"); err == nil {
		t.Error("unknown class: no error")
	}
	ml, _ := MultiLabel2D(40, 0, 1)
	tt, err := TagTask(ml, "c")
	if err != nil || tt.Tags != nil || len(tt.Classes) != 2 || tt.Validate() != nil {
		t.Errorf("TagTask: %v", err)
	}
	for i := 0; i < 40; i++ {
		if (tt.Y[i] == 1) != (ml.Tags.At(i, 2) == 1) {
			t.Fatal("TagTask labels")
		}
	}
}
