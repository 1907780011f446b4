package joint

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/model"
)

// predictBlock is the number of test rows whose β = K_φ(SV, x) are held at
// once (memory: nSV × predictBlock floats).
const predictBlock = 256

// Report implements model.Fitted.
func (m *Model) Report() *model.Report { return m.report }

// NumTags returns T.
func (m *Model) NumTags() int { return m.out.T }

// LabelSets returns the distinct training label sets (the candidates of eq 13).
func (m *Model) LabelSets() [][]float64 { return m.sets }

// AllLabelVectors returns every vector of {−1,+1}^T (T ≤ MaxExhaustiveTags),
// the candidates of eq (12); vector c has tag j on iff bit j of c is set.
func AllLabelVectors(t int) ([][]float64, error) {
	if t < 1 || t > MaxExhaustiveTags {
		return nil, fmt.Errorf("joint: exhaustive search needs 1 ≤ T ≤ %d, got %d", MaxExhaustiveTags, t)
	}
	out := make([][]float64, 1<<t)
	for c := range out {
		v := make([]float64, t)
		for j := 0; j < t; j++ {
			if c>>j&1 == 1 {
				v[j] = 1
			} else {
				v[j] = -1
			}
		}
		out[c] = v
	}
	return out, nil
}

// Predict implements model.Fitted using the model's prediction rule (eq 13
// by default). Tags holds the winning label set; Scores holds per tag the
// max-marginal margin max{S(y) : y_t = +1} − max{S(y) : y_t = −1} over the
// candidates, where S(y) = Σᵢ αᵢ βᵢ K_ψ(yᵢ, y) is the objective of eq (12):
// it is > 0 exactly for the tags of the winning set (ties aside).
func (m *Model) Predict(ds *data.Dataset) (*model.Prediction, error) {
	return m.PredictWith(ds, m.predict)
}

// PredictWith predicts with the given rule: PredictTrainSets (eq 13, the γ
// table built at training time) or PredictExhaustive (eq 12 by brute force
// over all 2^T label vectors).
func (m *Model) PredictWith(ds *data.Dataset, rule string) (*model.Prediction, error) {
	if ds == nil || ds.X == nil || ds.Rows() == 0 {
		return nil, data.ErrNoData
	}
	_, d := m.svX.Dims()
	if ds.Dim() != d {
		return nil, fmt.Errorf("joint: the model was trained on %d features, the data has %d", d, ds.Dim())
	}
	X := ds.X
	n, _ := X.Dims()
	for i := 0; i < n; i++ {
		for _, v := range X.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("joint: row %d holds %v", i+1, v)
			}
		}
	}
	cands, gamma, err := m.candidates(rule)
	if err != nil {
		return nil, err
	}
	nc := len(cands)
	R := len(m.gRows)
	t := m.out.T
	p := &model.Prediction{Tags: make([][]bool, n), Scores: make([][]float64, n), Decision: make([]float64, n)}
	// A (block × R) holds aₛ = Σ_{i ∈ SV, set(i) = s} αᵢβᵢ for every test row
	// (eq 13 grouped by label set) and S = A·γ the scores of every candidate.
	G := mat.NewDense(R, nc, gamma)
	var S mat.Dense
	for lo := 0; lo < n; lo += predictBlock {
		hi := min(lo+predictBlock, n)
		blk := X.Slice(lo, hi, 0, d).(*mat.Dense)
		beta := m.kern.Cross(m.svX, blk) // nSV × (hi−lo): βᵢ = K_φ(xᵢ, x)
		A := mat.NewDense(hi-lo, R, nil)
		for i, al := range m.alpha {
			s := m.gRowOf[m.svSet[i]]
			for r, b := range beta.RawRowView(i) {
				A.Set(r, s, A.At(r, s)+al*b)
			}
		}
		S.Reset()
		S.Mul(A, G)
		for r := lo; r < hi; r++ {
			row := S.RawRowView(r - lo)
			best := 0
			for c := 1; c < nc; c++ {
				if row[c] > row[best] {
					best = c
				}
			}
			if math.IsNaN(row[best]) {
				return nil, errors.New("joint: the prediction score is NaN")
			}
			tags := make([]bool, t)
			for j := 0; j < t; j++ {
				tags[j] = cands[best][j] > 0
			}
			p.Tags[r] = tags
			p.Decision[r] = row[best]
			p.Scores[r] = maxMarginals(row, cands, t)
		}
	}
	return p, nil
}

// candidates returns the label vectors a rule chooses among and the γ table
// (rows = m.gRows, columns = candidates) of their scores.
func (m *Model) candidates(rule string) (cands [][]float64, gamma []float64, err error) {
	switch rule {
	case PredictTrainSets, "":
		cands = m.sets
		gamma = m.gamma
		if gamma == nil { // beyond MaxGammaEntries: on the fly, per row block
			rows := make([][]float64, len(m.gRows))
			for r, s := range m.gRows {
				rows[r] = m.sets[s]
			}
			gamma = m.out.Table(rows, cands)
		}
	case PredictExhaustive:
		if cands, err = AllLabelVectors(m.out.T); err != nil {
			return nil, nil, err
		}
		rows := make([][]float64, len(m.gRows))
		for r, s := range m.gRows {
			rows[r] = m.sets[s]
		}
		gamma = m.out.Table(rows, cands)
	default:
		return nil, nil, fmt.Errorf("joint: unknown prediction rule %q", rule)
	}
	return cands, gamma, nil
}

// maxMarginals returns per tag max{S_c : c_t = +1} − max{S_c : c_t = −1}; a
// side without candidates counts as the lowest score minus the spread (so
// the margin has the right sign and stays finite).
func maxMarginals(S []float64, cands [][]float64, t int) []float64 {
	out := make([]float64, t)
	maxMarginalsTo(out, S, cands)
	return out
}

// maxMarginalsTo is maxMarginals writing into out (one entry per tag).
func maxMarginalsTo(out, S []float64, cands [][]float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range S {
		lo = math.Min(lo, s)
		hi = math.Max(hi, s)
	}
	floor := lo - (hi - lo) - 1e-12
	for j := range out {
		on, off := floor, floor
		for c, s := range S {
			if cands[c][j] > 0 {
				on = math.Max(on, s)
			} else {
				off = math.Max(off, s)
			}
		}
		out[j] = on - off
	}
}

// Score returns S(y) = Σᵢ αᵢ K_ψ(yᵢ, y) K_φ(xᵢ, x) — the objective of eq (12)
// — for one input x and label vector y ∈ {−1,+1}^T, straight from the
// definition (no γ table). For tests and diagnostics.
func (m *Model) Score(x, y []float64) float64 {
	var s float64
	for i, al := range m.alpha {
		s += al * m.out.Eval(m.sets[m.svSet[i]], y) * m.kern.Eval(m.svX.RawRowView(i), x)
	}
	return s
}
