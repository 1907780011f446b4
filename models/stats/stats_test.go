package stats

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// Demšar (2006), section 3.2.2: four C4.5 variants on 14 data sets with
// average ranks 3.143, 2.000, 2.893, 1.964 give χ²_F = 9.28, F_F = 3.69
// (critical F(3, 39) = 2.85 at α = 0.05) and a Nemenyi CD of
// 2.569·√(4·5/(6·14)) = 1.25.
func TestDemsarWorkedExample(t *testing.T) {
	f := FriedmanFromRanks([]float64{3.143, 2.000, 2.893, 1.964}, 14)
	if !near(f.ChiSquare, 9.28, 0.005) {
		t.Errorf("χ²_F = %.4f, Demšar 9.28", f.ChiSquare)
	}
	if !near(f.FF, 3.69, 0.005) {
		t.Errorf("F_F = %.4f, Demšar 3.69", f.FF)
	}
	if f.PF >= 0.05 || f.PF < 0.01 {
		t.Errorf("p(F_F) = %.4f; F_F = 3.69 exceeds the critical 2.85 at α = 0.05", f.PF)
	}
	cd, err := NemenyiCD(0.05, 4, 14)
	if err != nil || !near(cd, 1.25, 0.005) {
		t.Errorf("CD = %.4f (%v), Demšar 1.25", cd, err)
	}
}

// Paper 001, section 5.4: k = 7 methods, N = 45 data sets, q_0.05 = 2.949
// and CD = 1.343 (eq 41).
func TestPaper001CD(t *testing.T) {
	q, _ := NemenyiQ(0.05, 7)
	cd, err := NemenyiCD(0.05, 7, 45)
	if err != nil || q != 2.949 || !near(cd, 1.343, 0.0005) {
		t.Errorf("q = %v, CD = %.4f (%v); paper 001: 2.949, 1.343", q, cd, err)
	}
	// Its average ranks (Table 3) give eq (40) without tie correction.
	f := FriedmanFromRanks([]float64{6.678, 3.011, 5.500, 5.756, 2.678, 2.911, 1.467}, 45)
	// 222.11 in the paper is R's tie-corrected statistic (its table has
	// draws); eq (40) itself gives 220.2 from the rounded ranks.
	if f.ChiSquare < 218 || f.ChiSquare > 222.11 {
		t.Errorf("χ²_F = %.3f", f.ChiSquare)
	}
}

// R's friedman.test output quoted in a public Q&A thread: 9 algorithms on
// 2 data sets with ranks (1 8 6 4 7 2 5 3 9) and (1 6 3 9 7 2 8 4 5):
// χ² = 11.733, df = 8, p = 0.1635; Iman–Davenport F = 2.75, p = 0.08697.
func TestRFriedmanExample(t *testing.T) {
	r := [][]float64{{1, 8, 6, 4, 7, 2, 5, 3, 9}, {1, 6, 3, 9, 7, 2, 8, 4, 5}}
	f, err := FriedmanTest(r, false)
	if err != nil {
		t.Fatal(err)
	}
	if !near(f.ChiSquare, 11.733, 0.0005) || !near(f.P, 0.1635, 0.00005) {
		t.Errorf("χ² = %.4f p = %.5f; R 11.733, 0.1635", f.ChiSquare, f.P)
	}
	if !near(f.FF, 2.75, 0.0005) || !near(f.PF, 0.08697, 0.000005) {
		t.Errorf("F = %.4f p = %.6f; R 2.75, 0.08697", f.FF, f.PF)
	}
}

// scipy.stats.rankdata / friedmanchisquare on tables with and without ties
// (testdata/make_fixtures.py).
func TestAgainstScipy(t *testing.T) {
	raw, err := os.ReadFile("testdata/friedman.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Scores        [][]float64 `json:"scores"`
		AvgRanks      []float64   `json:"avg_ranks"`
		ChiSquareTies float64     `json:"chi_square_ties"`
		PTies         float64     `json:"p_ties"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		f, err := FriedmanTest(c.Scores, true)
		if err != nil {
			t.Fatal(err)
		}
		for j, r := range c.AvgRanks {
			if !near(f.AvgRanks[j], r, 1e-12) {
				t.Errorf("case %d method %d: average rank %v, scipy %v", i, j, f.AvgRanks[j], r)
			}
		}
		if !near(f.ChiSquareTies, c.ChiSquareTies, 1e-9*c.ChiSquareTies) || !near(f.PTies, c.PTies, 1e-9+1e-7*c.PTies) {
			t.Errorf("case %d: χ² %v p %v; scipy %v %v", i, f.ChiSquareTies, f.PTies, c.ChiSquareTies, c.PTies)
		}
	}
}

// Demšar's table of q_α agrees with the studentized range quantile / √2
// (scipy) to its printed precision.
func TestNemenyiTable(t *testing.T) {
	raw, err := os.ReadFile("testdata/nemenyi_q.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref map[string][]float64
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	for key, alpha := range map[string]float64{"0.05": 0.05, "0.1": 0.10} {
		for i, want := range ref[key] {
			q, err := NemenyiQ(alpha, i+2)
			if err != nil || !near(q, want, 1.5e-3) {
				t.Errorf("α=%v k=%d: q %v, scipy %v (%v)", alpha, i+2, q, want, err)
			}
		}
	}
	if _, err := NemenyiQ(0.01, 4); err == nil {
		t.Error("α = 0.01 accepted")
	}
	if _, err := NemenyiQ(0.05, 11); err == nil {
		t.Error("k = 11 accepted")
	}
}

func TestRanksTies(t *testing.T) {
	r, err := Ranks([][]float64{{0.9, 0.8, 0.9, 0.7}, {1, 1, 1, 1}}, true)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{1.5, 3, 1.5, 4}, {2.5, 2.5, 2.5, 2.5}}
	for i := range want {
		for j := range want[i] {
			if r[i][j] != want[i][j] {
				t.Fatalf("ranks %v, want %v", r, want)
			}
		}
	}
	f, _ := FriedmanTest([][]float64{{1, 1, 1}, {2, 2, 2}}, true)
	if f.ChiSquare != 0 || f.P != 1 || f.PTies != 1 {
		t.Errorf("all tied: %+v", f)
	}
}

func TestWinDrawLoss(t *testing.T) {
	w, err := WinDrawLoss([]float64{0.9, 0.8, 0.7, 0.5}, []float64{0.8, 0.8, 0.75, 0.5 + 1e-12}, 1e-9)
	if err != nil || w != (WDL{Win: 1, Draw: 2, Loss: 1}) || w.String() != "1/2/1" {
		t.Errorf("%v %v", w, err)
	}
	if _, err := WinDrawLoss([]float64{1}, []float64{1, 2}, 0); err == nil {
		t.Error("length mismatch accepted")
	}
}

func TestBadInput(t *testing.T) {
	for _, s := range [][][]float64{nil, {{1}}, {{1, 2}, {1}}, {{1, math.NaN()}}} {
		if _, err := FriedmanTest(s, true); err == nil {
			t.Errorf("%v accepted", s)
		}
	}
}

// MeanSD against values computed by hand: the sample deviation of
// {2, 4, 4, 4, 5, 5, 7, 9} is √(32/7); NaN entries are failed runs and do
// not count; one value has deviation 0; none gives NaN, NaN.
func TestMeanSD(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		x      []float64
		m, sd  float64
		nanOut bool
	}{
		{[]float64{2, 4, 4, 4, 5, 5, 7, 9}, 5, math.Sqrt(32.0 / 7), false},
		{[]float64{nan, 2, 4, nan, 4, 4, 5, 5, 7, 9, nan}, 5, math.Sqrt(32.0 / 7), false},
		{[]float64{3.5}, 3.5, 0, false},
		{[]float64{nan, 3.5}, 3.5, 0, false},
		{nil, 0, 0, true},
		{[]float64{nan, nan}, 0, 0, true},
	}
	for _, c := range cases {
		m, sd := MeanSD(c.x)
		if c.nanOut {
			if !math.IsNaN(m) || !math.IsNaN(sd) {
				t.Errorf("MeanSD(%v) = %v, %v; want NaN, NaN", c.x, m, sd)
			}
			continue
		}
		if math.Abs(m-c.m) > 1e-14 || math.Abs(sd-c.sd) > 1e-14 {
			t.Errorf("MeanSD(%v) = %v, %v; want %v, %v", c.x, m, sd, c.m, c.sd)
		}
	}
	x := []float64{1, nan, 2}
	MeanSD(x)
	if !math.IsNaN(x[1]) || x[0] != 1 || x[2] != 2 {
		t.Errorf("MeanSD changed its input: %v", x)
	}
}
