package qp

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// cholUpper must reproduce lapack64.Potrf (it runs the same blocked
// algorithm) and stop when tick fails.
func TestCholUpper(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 63, 64, 65, 200, 300} {
		g := make([]float64, n*n)
		for i := range g {
			g[i] = rng.NormFloat64()
		}
		a := make([]float64, n*n)
		blas64.Syrk(blas.Trans, 1, blas64.General{Rows: n, Cols: n, Stride: n, Data: g}, 0,
			blas64.Symmetric{N: n, Stride: n, Data: a, Uplo: blas.Upper})
		for i := 0; i < n; i++ {
			a[i*n+i] += 1
		}
		b := append([]float64(nil), a...)
		orig := append([]float64(nil), a...)
		ticks := 0
		ok, err := cholUpper(a, n, func() error { ticks++; return nil })
		if !ok || err != nil {
			t.Fatalf("n=%d: ok=%v err=%v", n, ok, err)
		}
		if _, ok := lapack64.Potrf(blas64.Symmetric{N: n, Stride: n, Data: b, Uplo: blas.Upper}); !ok {
			t.Fatal("Potrf failed")
		}
		d := 0.0
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				d = math.Max(d, math.Abs(a[i*n+j]-b[i*n+j])/(1+math.Abs(b[i*n+j])))
			}
		}
		if d > 1e-12 {
			t.Errorf("n=%d: differs from Potrf by %g", n, d)
		}
		if want := (n + cholBlock - 1) / cholBlock; n > cholBlock && (ticks < want || (cholChunk >= n && ticks != want)) {
			t.Errorf("n=%d: %d ticks, want %d", n, ticks, want)
		}
		// Not positive definite.
		c := append([]float64(nil), b...)
		for i := range c {
			c[i] = 0
		}
		for i := 0; i < n; i++ {
			c[i*n+i] = 1
		}
		c[(n-1)*n+n-1] = -1
		if ok, _ := cholUpper(c, n, func() error { return nil }); ok {
			t.Errorf("n=%d: indefinite matrix factorised", n)
		}
		stop := errors.New("stop")
		if n > cholBlock {
			if _, err := cholUpper(orig, n, func() error { return stop }); err != stop {
				t.Errorf("tick error not returned: %v", err)
			}
		}
	}
}
