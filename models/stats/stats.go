// Package stats compares classifiers over many data sets, as paper 001
// (section 5.4) and Demšar (2006, "Statistical comparisons of classifiers over
// multiple data sets", JMLR 7:1–30) do: average ranks with ties, the Friedman
// test (paper 001 eq 40, with its χ² p-value and the Iman–Davenport F form),
// the Nemenyi critical difference (eq 41) and win/draw/loss counts.
package stats

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Ranks ranks the methods (columns) on each data set (row) of scores: rank 1
// is the best (highest score when higherIsBetter, lowest otherwise) and tied
// methods share the mean of the ranks they span (Demšar 2006, §3.2.2).
func Ranks(scores [][]float64, higherIsBetter bool) ([][]float64, error) {
	k, err := check(scores)
	if err != nil {
		return nil, err
	}
	out := make([][]float64, len(scores))
	for i, row := range scores {
		idx := make([]int, k)
		for j := range idx {
			idx[j] = j
		}
		better := func(a, b float64) bool {
			if higherIsBetter {
				return a > b
			}
			return a < b
		}
		sort.SliceStable(idx, func(a, b int) bool { return better(row[idx[a]], row[idx[b]]) })
		r := make([]float64, k)
		for s := 0; s < k; {
			e := s + 1
			for e < k && row[idx[e]] == row[idx[s]] {
				e++
			}
			mean := float64(s+1+e) / 2 // ranks s+1 … e
			for t := s; t < e; t++ {
				r[idx[t]] = mean
			}
			s = e
		}
		out[i] = r
	}
	return out, nil
}

// AverageRanks returns each method's rank averaged over the data sets.
func AverageRanks(scores [][]float64, higherIsBetter bool) ([]float64, error) {
	r, err := Ranks(scores, higherIsBetter)
	if err != nil {
		return nil, err
	}
	k := len(r[0])
	avg := make([]float64, k)
	for _, row := range r {
		for j, v := range row {
			avg[j] += v
		}
	}
	for j := range avg {
		avg[j] /= float64(len(r))
	}
	return avg, nil
}

func check(scores [][]float64) (int, error) {
	if len(scores) == 0 {
		return 0, errors.New("stats: no data sets")
	}
	k := len(scores[0])
	if k < 2 {
		return 0, fmt.Errorf("stats: %d methods, need at least 2", k)
	}
	for i, row := range scores {
		if len(row) != k {
			return 0, fmt.Errorf("stats: data set %d has %d scores, the first has %d", i+1, len(row), k)
		}
		for j, v := range row {
			if math.IsNaN(v) {
				return 0, fmt.Errorf("stats: data set %d method %d: score is NaN", i+1, j+1)
			}
		}
	}
	return k, nil
}

// Friedman holds the Friedman test of k methods over N data sets.
type Friedman struct {
	N, K     int
	AvgRanks []float64 `json:"avg_ranks"`
	// ChiSquare is eq (40) of paper 001 (Demšar's χ²_F) and P its p-value
	// from the χ² distribution with k − 1 degrees of freedom.
	ChiSquare float64 `json:"chi_square"`
	P         float64 `json:"p"`
	// ChiSquareTies divides χ²_F by the tie correction
	// 1 − Σ(t³ − t)/(N k (k² − 1)) (what R's friedman.test and
	// scipy.stats.friedmanchisquare report); PTies is its p-value. Equal to
	// ChiSquare without ties.
	ChiSquareTies float64 `json:"chi_square_ties"`
	PTies         float64 `json:"p_ties"`
	// FF is Iman & Davenport's F_F = (N−1)χ²_F / (N(k−1) − χ²_F), distributed
	// as F with k−1 and (k−1)(N−1) degrees of freedom; PF its p-value
	// (+Inf and 0 when every data set ranks the methods identically).
	FF float64 `json:"ff"`
	PF float64 `json:"pf"`
}

// FriedmanTest runs the Friedman test on scores[data set][method].
func FriedmanTest(scores [][]float64, higherIsBetter bool) (*Friedman, error) {
	r, err := Ranks(scores, higherIsBetter)
	if err != nil {
		return nil, err
	}
	n, k := len(r), len(r[0])
	avg, _ := AverageRanks(scores, higherIsBetter)
	f := FriedmanFromRanks(avg, n)
	ties := 0.0
	for _, row := range scores {
		seen := map[float64]int{}
		for _, v := range row {
			seen[v]++
		}
		for _, t := range seen {
			ties += float64(t*t*t - t)
		}
	}
	c := 1 - ties/(float64(n)*float64(k)*float64(k*k-1))
	if c > 0 {
		f.ChiSquareTies = f.ChiSquare / c
		f.PTies = distuv.ChiSquared{K: float64(k - 1)}.Survival(f.ChiSquareTies)
	} else { // every method tied on every data set
		f.ChiSquareTies, f.PTies = 0, 1
	}
	return f, nil
}

// FriedmanFromRanks computes the test from the average ranks R_j of k
// methods over n data sets (eq 40: χ²_F = 12N/(k(k+1)) [Σ R_j² − k(k+1)²/4]);
// without the raw scores the tie correction is unknown (ChiSquareTies =
// ChiSquare).
func FriedmanFromRanks(avg []float64, n int) *Friedman {
	k := len(avg)
	fk, fn := float64(k), float64(n)
	s := 0.0
	for _, r := range avg {
		s += r * r
	}
	chi := 12 * fn / (fk * (fk + 1)) * (s - fk*(fk+1)*(fk+1)/4)
	if chi < 0 && chi > -1e-9 {
		chi = 0
	}
	f := &Friedman{N: n, K: k, AvgRanks: append([]float64(nil), avg...), ChiSquare: chi}
	f.P = distuv.ChiSquared{K: fk - 1}.Survival(chi)
	f.ChiSquareTies, f.PTies = f.ChiSquare, f.P
	den := fn*(fk-1) - chi
	if n > 1 && den > 1e-12 {
		f.FF = (fn - 1) * chi / den
		f.PF = distuv.F{D1: fk - 1, D2: (fk - 1) * (fn - 1)}.Survival(f.FF)
	} else {
		f.FF, f.PF = math.Inf(1), 0
	}
	return f
}

// qTable holds the critical values q_α of the two-tailed Nemenyi test
// (studentized range statistic / √2, infinite degrees of freedom) for
// k = 2…10 methods, as tabulated by Demšar (2006, Table 5a); they are checked
// against scipy.stats.studentized_range in stats_test.go.
var qTable = map[float64][]float64{
	0.05: {1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164},
	0.10: {1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920},
}

// NemenyiQ returns q_α for k methods (α ∈ {0.05, 0.10}, 2 ≤ k ≤ 10).
func NemenyiQ(alpha float64, k int) (float64, error) {
	t, ok := qTable[alpha]
	if !ok {
		return 0, fmt.Errorf("stats: Nemenyi q is tabulated for α = 0.05 and 0.10, not %g", alpha)
	}
	if k < 2 || k > 10 {
		return 0, fmt.Errorf("stats: Nemenyi q is tabulated for 2 to 10 methods, not %d", k)
	}
	return t[k-2], nil
}

// NemenyiCD returns the critical difference of average ranks (eq 41:
// CD = q_α √(k(k+1)/(6N))) for k methods over n data sets.
func NemenyiCD(alpha float64, k, n int) (float64, error) {
	q, err := NemenyiQ(alpha, k)
	if err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, errors.New("stats: no data sets")
	}
	return q * math.Sqrt(float64(k*(k+1))/(6*float64(n))), nil
}

// WDL counts wins, draws and losses of one method against another.
type WDL struct {
	Win  int `json:"win"`
	Draw int `json:"draw"`
	Loss int `json:"loss"`
}

// String formats the counts as W/D/L.
func (w WDL) String() string { return fmt.Sprintf("%d/%d/%d", w.Win, w.Draw, w.Loss) }

// WinDrawLoss compares a with b data set by data set (higher is better): a
// draw when |a_i − b_i| ≤ tol.
func WinDrawLoss(a, b []float64, tol float64) (WDL, error) {
	var w WDL
	if len(a) != len(b) {
		return w, fmt.Errorf("stats: %d scores against %d", len(a), len(b))
	}
	for i := range a {
		switch d := a[i] - b[i]; {
		case math.IsNaN(d):
			return w, fmt.Errorf("stats: data set %d: score is NaN", i+1)
		case math.Abs(d) <= tol:
			w.Draw++
		case d > 0:
			w.Win++
		default:
			w.Loss++
		}
	}
	return w, nil
}

// MeanSD is the summary of repeated measurements that the experiments'
// tables print as mean ± sd: the mean and the sample standard deviation
// (n − 1 in the denominator, as MATLAB's std and R's sd) of the values that
// are not NaN (a NaN marks a failed run). With one value the deviation is 0;
// with none both are NaN.
func MeanSD(x []float64) (mean, sd float64) {
	ok := x
	for i, v := range x {
		if math.IsNaN(v) { // copy only when there is something to drop
			ok = append(make([]float64, 0, len(x)), x[:i]...)
			for _, w := range x[i+1:] {
				if !math.IsNaN(w) {
					ok = append(ok, w)
				}
			}
			break
		}
	}
	switch len(ok) {
	case 0:
		return math.NaN(), math.NaN()
	case 1:
		return ok[0], 0
	}
	return stat.MeanStdDev(ok, nil)
}
