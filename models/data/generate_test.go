package data

import (
	"math"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestGeneratorsBasic(t *testing.T) {
	for _, g := range Generators {
		for _, n := range []int{3, 10, 101} {
			if g.Name == "blobs" && n < 3 {
				continue
			}
			ds, err := GenerateByName(g.Name, n, g.DefaultNoise, 42)
			if err != nil {
				t.Fatalf("%s n=%d: %v", g.Name, n, err)
			}
			if err := ds.Validate(); err != nil {
				t.Fatalf("%s: %v", g.Name, err)
			}
			if ds.Rows() != n || ds.Dim() != 2 || ds.Kind != g.Kind || ds.Name != g.Name {
				t.Errorf("%s: %v", g.Name, Describe(ds))
			}
			if g.Description == "" || ds.Provenance.Details == "" {
				t.Errorf("%s: no description", g.Name)
			}
			switch g.Kind {
			case KindLUPI, KindTwoView:
				if ds.Z == nil {
					t.Errorf("%s: no Z", g.Name)
				}
			case KindMultiLabel:
				if ds.Tags == nil || ds.Y != nil {
					t.Errorf("%s: tags %v y %v", g.Name, ds.Tags != nil, ds.Y != nil)
				}
			}
			if ds.Y != nil {
				counts := ds.ClassCounts()
				sort.Ints(counts)
				if counts[len(counts)-1]-counts[0] > 1 {
					t.Errorf("%s n=%d: class counts %v not balanced", g.Name, n, ds.ClassCounts())
				}
			}
		}
		a, _ := GenerateByName(g.Name, 50, g.DefaultNoise, 7)
		b, _ := GenerateByName(g.Name, 50, g.DefaultNoise, 7)
		c, _ := GenerateByName(g.Name, 50, g.DefaultNoise, 8)
		if !mEqual(a.X, b.X) || (a.Z != nil && !mEqual(a.Z, b.Z)) || (a.Tags != nil && !mEqual(a.Tags, b.Tags)) {
			t.Errorf("%s: same seed, different data", g.Name)
		}
		if mEqual(a.X, c.X) {
			t.Errorf("%s: different seeds, same data", g.Name)
		}
		for _, bad := range []struct {
			n     int
			noise float64
		}{{1, 0.1}, {0, 0.1}, {-5, 0.1}, {10, -1}, {10, math.NaN()}, {10, math.Inf(1)}, {MaxGenerated + 1, 0}} {
			if _, err := GenerateByName(g.Name, bad.n, bad.noise, 1); err == nil {
				t.Errorf("%s n=%d noise=%v: no error", g.Name, bad.n, bad.noise)
			}
		}
	}
	if _, err := GenerateByName("nope", 10, 0, 1); err == nil {
		t.Error("unknown generator: no error")
	}
}

// TestGroundTruthNoiseFree checks each generator against its documented
// ground truth with zero noise.
func TestGroundTruthNoiseFree(t *testing.T) {
	const n = 400
	check := func(name string, ok func(x []float64, c int) bool) {
		ds, err := GenerateByName(name, n, 0, 3)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			if !ok(ds.X.RawRowView(i), ds.Y[i]) {
				t.Fatalf("%s: row %d %v class %d breaks the ground truth", name, i, ds.X.RawRowView(i), ds.Y[i])
			}
		}
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	check("moons", func(x []float64, c int) bool {
		if c == 0 {
			return near(math.Hypot(x[0], x[1]), 1) && x[1] >= 0
		}
		return near(math.Hypot(x[0]-1, x[1]-0.5), 1) && x[1] <= 0.5
	})
	check("circles", func(x []float64, c int) bool { return near(math.Hypot(x[0], x[1]), []float64{1, 0.5}[c]) })
	check("xor", func(x []float64, c int) bool {
		return (x[0]*x[1] > 0) == (c == 1) && math.Abs(x[0]) <= 1 && math.Abs(x[1]) <= 1
	})
	check("spirals", func(x []float64, c int) bool {
		r := math.Hypot(x[0], x[1])
		th := 3*math.Pi*r + float64(c)*math.Pi
		return near(x[0], r*math.Cos(th)) && near(x[1], r*math.Sin(th))
	})
	check("lupi2d", func(x []float64, c int) bool { return true })
	ds, _ := LUPI2D(n, 0, 3)
	for i := 0; i < n; i++ {
		if (ds.Z.At(i, 0)+ds.Z.At(i, 1) > 0) != (ds.Y[i] == 1) {
			t.Fatalf("lupi2d: Z row %d on the wrong side", i)
		}
	}
	tv, _ := TwoView2D(n, 0, 3)
	for i := 0; i < n; i++ {
		// Recover the latent point from view B (polar from (−1.5, 0)).
		r, a := tv.Z.At(i, 0), tv.Z.At(i, 1)
		u1, u2 := r*math.Cos(a)-1.5, r*math.Sin(a)
		if (u2 > TwoView2DBoundary(u1)) != (tv.Y[i] == 1) {
			t.Fatalf("twoview2d: row %d latent on the wrong side", i)
		}
		if !near(tv.X.At(i, 0), u1+0.3*math.Sin(math.Pi*u2)) && math.Abs(tv.X.At(i, 0)-(u1+0.3*math.Sin(math.Pi*u2))) > 1e-9 {
			t.Fatalf("twoview2d: views disagree on row %d", i)
		}
	}
	ml, _ := MultiLabel2D(n, 0, 3)
	for i := 0; i < n; i++ {
		truth := MultiLabel2DTags(ml.X.At(i, 0), ml.X.At(i, 1))
		for j, on := range truth {
			if (ml.Tags.At(i, j) == 1) != on {
				t.Fatalf("multilabel2d: row %d tag %d", i, j)
			}
		}
	}
}

// TestLUPI2DBayesError checks the documented Bayes error of the rule
// x₁ + x₂ > 0 by Monte Carlo (within 4 standard errors).
func TestLUPI2DBayesError(t *testing.T) {
	for _, noise := range []float64{0, 0.2, 1} {
		const n = 40000
		ds, _ := LUPI2D(n, noise, 11)
		wrong := 0
		for i := 0; i < n; i++ {
			if (ds.X.At(i, 0)+ds.X.At(i, 1) > 0) != (ds.Y[i] == 1) {
				wrong++
			}
		}
		p := LUPI2DBayesError(noise)
		got := float64(wrong) / n
		se := math.Sqrt(p * (1 - p) / n)
		if math.Abs(got-p) > 4*se {
			t.Errorf("noise %v: Monte Carlo error %.4f, formula %.4f (se %.4f)", noise, got, p, se)
		}
	}
}

// knnAccuracy is an independent k-nearest-neighbour classifier (Euclidean,
// majority vote, ties to the nearest).
func knnAccuracy(trX *mat.Dense, trY []int, teX *mat.Dense, teY []int, k int) float64 {
	ntr, _ := trX.Dims()
	nte, _ := teX.Dims()
	right := 0
	type nd struct {
		d float64
		c int
	}
	ds := make([]nd, ntr)
	for i := 0; i < nte; i++ {
		q := teX.RawRowView(i)
		for j := 0; j < ntr; j++ {
			p := trX.RawRowView(j)
			s := 0.0
			for l := range p {
				s += (p[l] - q[l]) * (p[l] - q[l])
			}
			ds[j] = nd{s, trY[j]}
		}
		sort.Slice(ds, func(a, b int) bool { return ds[a].d < ds[b].d })
		votes := map[int]int{}
		best, bestV := ds[0].c, 0
		for _, e := range ds[:k] {
			votes[e.c]++
			if votes[e.c] > bestV {
				best, bestV = e.c, votes[e.c]
			}
		}
		if best == teY[i] {
			right++
		}
	}
	return float64(right) / float64(nte)
}

// blockAccuracy scales on the training part and runs k-NN on X or Z.
func blockAccuracy(t *testing.T, train, test *Dataset, useZ bool, k int) float64 {
	t.Helper()
	sc, err := FitScaler(train, ScaleStandard)
	if err != nil {
		t.Fatal(err)
	}
	tr, te := sc.Apply(train), sc.Apply(test)
	if useZ {
		return knnAccuracy(tr.Z, tr.Y, te.Z, te.Y, k)
	}
	return knnAccuracy(tr.X, tr.Y, te.X, te.Y, k)
}

func TestLUPI2DZBeatsX(t *testing.T) {
	ds, err := LUPI2D(1000, 0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	train, test, err := StratifiedSplit(ds, 0.3, 2)
	if err != nil {
		t.Fatal(err)
	}
	ax := blockAccuracy(t, train, test, false, 7)
	az := blockAccuracy(t, train, test, true, 7)
	t.Logf("lupi2d k-NN held-out accuracy: X %.3f, Z %.3f (Bayes on X %.3f)", ax, az, 1-LUPI2DBayesError(0.2))
	if az < ax+0.08 {
		t.Errorf("Z (%.3f) does not clearly beat X (%.3f)", az, ax)
	}
	if ax > 1-LUPI2DBayesError(0.2)+0.04 {
		t.Errorf("X accuracy %.3f above the Bayes rate %.3f", ax, 1-LUPI2DBayesError(0.2))
	}
}

func TestTwoView2DViewsInformative(t *testing.T) {
	ds, _ := TwoView2D(800, 0.1, 4)
	train, test, _ := StratifiedSplit(ds, 0.5, 5)
	aa := blockAccuracy(t, train, test, false, 5)
	ab := blockAccuracy(t, train, test, true, 5)
	t.Logf("twoview2d k-NN held-out accuracy: view A %.3f, view B %.3f", aa, ab)
	if aa < 0.8 || ab < 0.8 {
		t.Errorf("views should each be informative: %.3f %.3f", aa, ab)
	}
}

func TestMultiLabel2DCorrelated(t *testing.T) {
	ds, _ := MultiLabel2D(4000, 0.05, 9)
	s := Describe(ds)
	n := float64(ds.Rows())
	none := 0
	for i := 0; i < ds.Rows(); i++ {
		if mat.Sum(ds.Tags.RowView(i)) == 0 {
			none++
		}
	}
	for j, c := range s.TagCounts {
		if f := float64(c) / n; f < 0.1 || f > 0.6 {
			t.Errorf("tag %s frequency %.2f", ds.TagNames[j], f)
		}
	}
	if none == 0 {
		t.Error("no row without tags")
	}
	corr := func(a, b int) float64 {
		x, y := mat.Col(nil, a, ds.Tags), mat.Col(nil, b, ds.Tags)
		var mx, my float64
		for i := range x {
			mx += x[i] / n
			my += y[i] / n
		}
		var sxy, sxx, syy float64
		for i := range x {
			sxy += (x[i] - mx) * (y[i] - my)
			sxx += (x[i] - mx) * (x[i] - mx)
			syy += (y[i] - my) * (y[i] - my)
		}
		return sxy / math.Sqrt(sxx*syy)
	}
	if r := corr(0, 1); r < 0.25 {
		t.Errorf("corr(a, b) = %.2f, want strongly positive", r)
	}
	if r := corr(2, 3); r < 0.2 {
		t.Errorf("corr(c, d) = %.2f, want positive", r)
	}
}

func TestBlobsBayesNearestCentre(t *testing.T) {
	ds, _ := Blobs(3000, 0, 1)
	right := 0
	for i := 0; i < ds.Rows(); i++ {
		x := ds.X.RawRowView(i)
		best, bd := 0, math.Inf(1)
		for c, ctr := range BlobCentres {
			if d := math.Hypot(x[0]-ctr[0], x[1]-ctr[1]); d < bd {
				best, bd = c, d
			}
		}
		if best == ds.Y[i] {
			right++
		}
	}
	// sd 0.25, centres 1.5·√3 apart: the nearest-centre rule is almost exact.
	if acc := float64(right) / 3000; acc < 0.99 {
		t.Errorf("nearest-centre accuracy %.3f", acc)
	}
}
