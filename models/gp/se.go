package gp

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// seKernel is the squared-exponential kernel of paper 002 §2.1 (there written
// θ exp(−‖x−x'‖²/(2l)); here with a length-scale ℓ = √l, optionally one per
// input dimension — ARD):
//
//	k(x, x') = θ exp(−½ Σ_d (x_d − x'_d)²/ℓ_d²).
//
// Hyper-parameters are kept as logs: LogAmp = log θ, LogLen[d] = log ℓ_d
// (LogLen has length 1 for one shared length-scale).
type seKernel struct {
	LogAmp float64   `json:"log_amplitude"`
	LogLen []float64 `json:"log_lengthscale"`
}

func (k seKernel) invLen2(d int) []float64 {
	out := make([]float64, d)
	for j := range out {
		l := k.LogLen[0]
		if len(k.LogLen) > 1 {
			l = k.LogLen[j]
		}
		out[j] = math.Exp(-2 * l)
	}
	return out
}

func (k seKernel) eval(a, b, il2 []float64) float64 {
	var s float64
	for j := range a {
		d := a[j] - b[j]
		s += d * d * il2[j]
	}
	return math.Exp(k.LogAmp - 0.5*s)
}

// gram returns K(X, X) plus a jitter of 1e-10·θ on the diagonal.
func (k seKernel) gram(X *mat.Dense) *mat.SymDense {
	n, d := X.Dims()
	il2 := k.invLen2(d)
	K := mat.NewSymDense(n, nil)
	amp := math.Exp(k.LogAmp)
	for i := 0; i < n; i++ {
		xi := X.RawRowView(i)
		K.SetSym(i, i, amp*(1+1e-10))
		for j := i + 1; j < n; j++ {
			K.SetSym(i, j, k.eval(xi, X.RawRowView(j), il2))
		}
	}
	return K
}

// crossTo writes K(X, Xs) into out (n×m).
func (k seKernel) crossTo(out, X, Xs *mat.Dense) {
	n, d := X.Dims()
	m, _ := Xs.Dims()
	il2 := k.invLen2(d)
	or := out.RawMatrix()
	for i := 0; i < n; i++ {
		xi := X.RawRowView(i)
		row := or.Data[i*or.Stride : i*or.Stride+m]
		for j := range row {
			row[j] = k.eval(xi, Xs.RawRowView(j), il2)
		}
	}
}

// grad returns ½ Σᵢⱼ Wᵢⱼ ∂Kᵢⱼ/∂θ for θ = (log θ, log ℓ_1, …) (R&W eq 3.74 with
// W = bbᵀ − S̃^½B⁻¹S̃^½): ∂K/∂log θ = K and ∂K/∂log ℓ_d = K ∘ (x_d − x'_d)²/ℓ_d².
//
// tick, if not nil, is called every few rows (about 2¹⁶ pair terms apart).
func (k seKernel) grad(X *mat.Dense, K, W *mat.SymDense, tick func()) []float64 {
	n, d := X.Dims()
	il2 := k.invLen2(d)
	g := make([]float64, 1+len(k.LogLen))
	ard := len(k.LogLen) > 1
	wr, kr := W.RawSymmetric(), K.RawSymmetric()
	every := max(1, (1<<16)/max(1, n*d))
	for i := 0; i < n; i++ {
		if tick != nil && i%every == every-1 {
			tick()
		}
		xi := X.RawRowView(i)
		wrow, krow := wr.Data[i*wr.Stride:i*wr.Stride+n], kr.Data[i*kr.Stride:i*kr.Stride+n]
		for j := i; j < n; j++ {
			w := wrow[j] * krow[j]
			if i != j {
				w *= 2
			}
			g[0] += w
			if i == j {
				continue
			}
			xj := X.RawRowView(j)
			if ard {
				for c := 0; c < d; c++ {
					dd := xi[c] - xj[c]
					g[1+c] += w * dd * dd * il2[c]
				}
			} else {
				var s float64
				for c := 0; c < d; c++ {
					dd := xi[c] - xj[c]
					s += dd * dd
				}
				g[1] += w * s * il2[0]
			}
		}
	}
	for i := range g {
		g[i] *= 0.5
	}
	return g
}

// medianDistance is the median pairwise Euclidean distance of (at most 300)
// rows of X: the usual starting length-scale.
func medianDistance(X *mat.Dense) float64 {
	n, _ := X.Dims()
	step := 1
	if n > 300 {
		step = n / 300
	}
	var ds []float64
	for i := 0; i < n; i += step {
		for j := i + step; j < n; j += step {
			ds = append(ds, floatsDistance(X.RawRowView(i), X.RawRowView(j)))
		}
	}
	if len(ds) == 0 {
		return 1
	}
	sortFloats(ds)
	m := ds[len(ds)/2]
	if !(m > 1e-12) {
		return 1
	}
	return m
}

func floatsDistance(a, b []float64) float64 {
	var s float64
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return math.Sqrt(s)
}
