package kernel

import (
	"gonum.org/v1/gonum/mat"

	"lupilab/models/fastblas"
)

// Expansion is a decision function written as a kernel expansion,
//
//	f(x) = Σₜ Coef[t]·K(SV[t], x) + Bias,
//
// the form of every SVM-type model's decision (SVM, SVM1+, SVM2+: the
// privileged space only shapes the coefficients).
type Expansion struct {
	Kernel Kernel
	SV     *mat.Dense // m × d
	Coef   []float64  // m
	Bias   float64
}

// Expander is implemented by binary models whose decision is an Expansion
// on the main features (nil when it is not, e.g. a precomputed kernel).
type Expander interface {
	Expansion() *Expansion
}

// gridBlock is the number of multiply-adds one block of OnGrid does between
// calls to tick: about 10 ms in the browser.
const gridBlock = 4 << 20

// OnGrid evaluates a two-feature expansion at every node (xs[i], ys[j]) of a
// rectangular grid, row-major with the y index outer: out[j·len(xs)+i]. It
// reports false when the expansion has no such fast form (more than two
// features, or a kernel other than RBF and linear); the caller then predicts
// point by point.
//
// The RBF kernel factorises over the two coordinates,
//
//	exp(−γ‖x − s‖²) = exp(−γ(x₁ − s₁)²) · exp(−γ(x₂ − s₂)²),
//
// so with Aᵢₜ = exp(−γ(xs[i] − sₜ₁)²) and Bⱼₜ = Coefₜ·exp(−γ(ys[j] − sₜ₂)²)
// the grid of decision values is the matrix product B·Aᵀ + Bias (fastblas.AddABt): (W + H)·m
// exponentials and one GEMM instead of W·H·m exponentials. The product of the
// two factors equals the joint exponential to a few ulp, so the values agree
// with point-by-point prediction to rounding. tick (if not nil) is called
// between blocks of rows so a browser can repaint.
func (e *Expansion) OnGrid(xs, ys []float64, tick func()) ([]float64, bool) {
	if e == nil || e.SV == nil {
		return nil, false
	}
	m, d := e.SV.Dims()
	if d != 2 || len(e.Coef) != m || len(xs) == 0 || len(ys) == 0 {
		return nil, false
	}
	w, h := len(xs), len(ys)
	out := make([]float64, w*h)
	switch e.Kernel.Kind {
	case Linear:
		var w0, w1 float64
		for t, c := range e.Coef {
			w0 += c * e.SV.At(t, 0)
			w1 += c * e.SV.At(t, 1)
		}
		for j, y := range ys {
			row := out[j*w : (j+1)*w]
			for i, x := range xs {
				row[i] = w0*x + w1*y + e.Bias
			}
		}
		return out, true
	case RBF:
	default:
		return nil, false
	}
	g := e.Kernel.Gamma
	factor := func(vals []float64, col int, coef []float64) []float64 {
		f := make([]float64, len(vals)*m)
		for i, v := range vals {
			r := f[i*m : (i+1)*m]
			for t := range r {
				dv := v - e.SV.At(t, col)
				r[t] = fastExp(-g * dv * dv)
				if coef != nil {
					r[t] *= coef[t]
				}
			}
		}
		return f
	}
	a := factor(xs, 0, nil)
	b := factor(ys, 1, e.Coef)
	for i := range out {
		out[i] = e.Bias
	}
	rows := max(1, gridBlock/max(1, w*m))
	for lo := 0; lo < h; lo += rows {
		hi := min(h, lo+rows)
		fastblas.AddABt(b[lo*m:hi*m], a, out[lo*w:hi*w], hi-lo, m, w)
		if tick != nil && hi < h {
			tick()
		}
	}
	return out, true
}
