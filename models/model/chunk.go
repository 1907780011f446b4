package model

import (
	"time"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
)

// chunkTarget is the time one chunk of PredictChunked should take: short
// enough that the caller's tick (which yields the browser's event loop)
// keeps the page responsive, long enough that the per-call overhead stays
// small.
const chunkTarget = 20 * time.Millisecond

// PredictChunked predicts the rows of ds in chunks whose size adapts so that
// each takes about 20 ms, calling tick (if not nil) between chunks, and
// merges the results. It gives the same prediction as f.Predict(ds) for
// models whose predictions are row-wise (all of LUPI Lab's).
func PredictChunked(f Fitted, ds *data.Dataset, tick func()) (*Prediction, error) {
	n := ds.Rows()
	if tick == nil || n <= 64 {
		return f.Predict(ds)
	}
	out := &Prediction{}
	chunk := 64
	for lo := 0; lo < n; {
		hi := min(lo+chunk, n)
		part := *ds
		part.X = rows(ds.X, lo, hi)
		part.Z = rows(ds.Z, lo, hi)
		part.Tags = rows(ds.Tags, lo, hi)
		if ds.Y != nil {
			part.Y = ds.Y[lo:hi]
		}
		start := time.Now()
		p, err := f.Predict(&part)
		if err != nil {
			return nil, err
		}
		elapsed := time.Since(start)
		out.Labels = append(out.Labels, p.Labels...)
		out.Decision = append(out.Decision, p.Decision...)
		out.Scores = append(out.Scores, p.Scores...)
		out.Prob = append(out.Prob, p.Prob...)
		out.Tags = append(out.Tags, p.Tags...)
		for k, v := range p.Views {
			if out.Views == nil {
				out.Views = map[string][]float64{}
			}
			out.Views[k] = append(out.Views[k], v...)
		}
		lo = hi
		tick()
		// Aim the next chunk at the target time (at most doubling).
		if elapsed > 0 {
			next := int(float64(chunk) * float64(chunkTarget) / float64(elapsed))
			chunk = max(8, min(next, 2*chunk))
		} else {
			chunk *= 2
		}
	}
	return out, nil
}

func rows(m *mat.Dense, lo, hi int) *mat.Dense {
	if m == nil {
		return nil
	}
	_, c := m.Dims()
	return m.Slice(lo, hi, 0, c).(*mat.Dense)
}
