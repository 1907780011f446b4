package joint

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/kernel"
)

// TagScoresOnGrid evaluates the joint SVM's prediction at every node
// (xs[i], ys[j]) of a grid (row-major, y outer), as Predict does point by
// point: scores[t] holds tag t's max-marginal margin
// max{S(y) : y_t = +1} − max{S(y) : y_t = −1} (Predict's Scores) and on[t]
// whether the winning label set has tag t (Predict's Tags).
//
// Why this score: rule (13) predicts the candidate y maximising
// S(y) = Σᵢ αᵢ K_ψ(yᵢ, y) K_φ(xᵢ, x); tag t is on exactly when the best
// candidate with y_t = +1 beats the best with y_t = −1, so the max-marginal
// is > 0 exactly where the tag is predicted (ties aside) and its 0 level is
// the tag's boundary as the model predicts it. It is continuous (a difference
// of maxima of continuous functions), unlike the ±1 of the tag set. A
// per-tag SVM-like value (e.g. Σᵢ αᵢ yᵢₜ K_φ(xᵢ, x)) would not be: the joint
// rule couples the tags, so that value's sign can disagree with the
// prediction.
//
// Grouped by label set as in Predict, S = A·γ where Aᵣ(x) = Σ_{i: set(i) = r}
// αᵢ K_φ(xᵢ, x) is a kernel expansion per label set carrying support
// vectors, evaluated on the grid by kernel.Expansion.OnGrid. ok is false
// when the input kernel or the number of features has no grid form.
func (m *Model) TagScoresOnGrid(xs, ys []float64, tick func()) (scores [][]float64, on [][]bool, ok bool, err error) {
	if _, d := m.svX.Dims(); d != 2 {
		return nil, nil, false, nil
	}
	cands, gamma, err := m.candidates(m.predict)
	if err != nil {
		return nil, nil, false, err
	}
	R, nc, t := len(m.gRows), len(cands), m.out.T
	// One expansion per γ row.
	members := make([][]int, R)
	for i := range m.alpha {
		r := m.gRowOf[m.svSet[i]]
		members[r] = append(members[r], i)
	}
	n := len(xs) * len(ys)
	A := make([][]float64, R)
	for r, idx := range members {
		sv := mat.NewDense(len(idx), 2, nil)
		coef := make([]float64, len(idx))
		for k, i := range idx {
			sv.SetRow(k, m.svX.RawRowView(i))
			coef[k] = m.alpha[i]
		}
		v, ok := (&kernel.Expansion{Kernel: m.kern, SV: sv, Coef: coef}).OnGrid(xs, ys, tick)
		if !ok {
			return nil, nil, false, nil
		}
		A[r] = v
	}
	scores, on = make([][]float64, t), make([][]bool, t)
	for j := range scores {
		scores[j], on[j] = make([]float64, n), make([]bool, n)
	}
	S, mm := make([]float64, nc), make([]float64, t)
	for p := 0; p < n; p++ {
		for c := range S {
			S[c] = 0
		}
		for r := 0; r < R; r++ {
			a := A[r][p]
			g := gamma[r*nc : (r+1)*nc]
			for c := range S {
				S[c] += a * g[c]
			}
		}
		best := 0
		for c := 1; c < nc; c++ {
			if S[c] > S[best] {
				best = c
			}
		}
		if math.IsNaN(S[best]) {
			return nil, nil, false, errors.New("joint: the prediction score is NaN")
		}
		maxMarginalsTo(mm, S, cands)
		for j := 0; j < t; j++ {
			scores[j][p] = mm[j]
			on[j][p] = cands[best][j] > 0
		}
	}
	return scores, on, true, nil
}

// TagExpansions returns each tag's SVM decision f_t(x) = Σ yᵢαᵢK(xᵢ, x) + b
// (eq 6, Predict's Scores) as a kernel expansion; nil when one has none.
func (m *Indep) TagExpansions() []*kernel.Expansion {
	out := make([]*kernel.Expansion, len(m.Models))
	for t, sm := range m.Models {
		if out[t] = sm.Expansion(); out[t] == nil {
			return nil
		}
	}
	return out
}
