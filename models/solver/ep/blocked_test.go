package ep

import (
	"errors"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// The tiled solves and rank-k update agree with single blas64 calls on
// sizes that leave partial tiles (n not a multiple of the tile sizes), and a
// tick error stops them.
func TestTiledLevel3(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 7, 64, 65, 150, 300} {
		for _, m := range []int{1, 129, 300} {
			// a well-conditioned triangular matrix in both triangles
			td := make([]float64, n*n)
			for i := range td {
				td[i] = rng.NormFloat64() / float64(n)
			}
			for i := 0; i < n; i++ {
				td[i*n+i] = 1 + rng.Float64()
			}
			bd := make([]float64, n*m)
			for i := range bd {
				bd[i] = rng.NormFloat64()
			}
			cases := []struct {
				name  string
				tri   blas64.Triangular
				trans blas.Transpose
				lower bool
			}{
				{"Uᵀ", blas64.Triangular{N: n, Stride: n, Data: td, Uplo: blas.Upper, Diag: blas.NonUnit}, blas.Trans, true},
				{"L unit", blas64.Triangular{N: n, Stride: n, Data: td, Uplo: blas.Lower, Diag: blas.Unit}, blas.NoTrans, true},
				{"U", blas64.Triangular{N: n, Stride: n, Data: td, Uplo: blas.Upper, Diag: blas.NonUnit}, blas.NoTrans, false},
			}
			for _, c := range cases {
				want := blas64.General{Rows: n, Cols: m, Stride: m, Data: append([]float64(nil), bd...)}
				got := blas64.General{Rows: n, Cols: m, Stride: m, Data: append([]float64(nil), bd...)}
				blas64.Trsm(blas.Left, c.trans, 1, c.tri, want)
				var err error
				if c.lower {
					err = solveLower(c.tri, c.trans, got, nil)
				} else {
					err = solveUpper(c.tri, got, nil)
				}
				if err != nil {
					t.Fatal(err)
				}
				if !mat.EqualApprox(mat.NewDense(n, m, got.Data), mat.NewDense(n, m, want.Data), 1e-10) {
					t.Errorf("n=%d m=%d %s: tiled solve differs from Trsm", n, m, c.name)
				}
			}
			// S − VᵀV with V m×n
			sd := make([]float64, n*n)
			for i := range sd {
				sd[i] = rng.NormFloat64()
			}
			vd := make([]float64, m*n)
			for i := range vd {
				vd[i] = rng.NormFloat64()
			}
			v := blas64.General{Rows: m, Cols: n, Stride: n, Data: vd}
			want := blas64.Symmetric{N: n, Stride: n, Data: append([]float64(nil), sd...), Uplo: blas.Upper}
			got := blas64.Symmetric{N: n, Stride: n, Data: append([]float64(nil), sd...), Uplo: blas.Upper}
			blas64.Syrk(blas.Trans, -1, v, 1, want)
			if err := syrkUpper(v, got, nil); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					w, g := want.Data[i*n+j], got.Data[i*n+j]
					if j < i {
						w = sd[i*n+j] // the lower triangle is not touched
					}
					if d := w - g; d > 1e-10 || d < -1e-10 {
						t.Fatalf("n=%d m=%d: syrk (%d,%d) %g vs %g", n, m, i, j, g, w)
					}
				}
			}
		}
	}
	stop := errors.New("stop")
	tri := blas64.Triangular{N: 200, Stride: 200, Data: make([]float64, 200*200), Uplo: blas.Upper, Diag: blas.Unit}
	b := blas64.General{Rows: 200, Cols: 10, Stride: 10, Data: make([]float64, 2000)}
	calls := 0
	tick := func() error { calls++; return stop }
	if err := solveLower(tri, blas.Trans, b, tick); err != stop || calls != 1 {
		t.Errorf("solveLower ignored the tick error: %v after %d ticks", err, calls)
	}
	calls = 0
	if err := solveUpper(tri, b, tick); err != stop || calls != 1 {
		t.Errorf("solveUpper ignored the tick error: %v after %d ticks", err, calls)
	}
	calls = 0
	if err := syrkUpper(blas64.General{Rows: 10, Cols: 200, Stride: 200, Data: make([]float64, 2000)}, blas64.Symmetric{N: 200, Stride: 200, Data: make([]float64, 200*200), Uplo: blas.Upper}, tick); err != stop || calls != 1 {
		t.Errorf("syrkUpper ignored the tick error: %v after %d ticks", err, calls)
	}
}

// luTiled factorises like lapack64.Getrf: P L U reproduces A, and on these
// matrices (no near-ties between pivot candidates) the interchanges and
// factors equal Getrf's.
func TestLUTiled(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for _, n := range []int{1, 5, 64, 65, 200} {
		ad := make([]float64, n*n)
		for i := range ad {
			ad[i] = rng.NormFloat64()
		}
		want := blas64.General{Rows: n, Cols: n, Stride: n, Data: append([]float64(nil), ad...)}
		got := blas64.General{Rows: n, Cols: n, Stride: n, Data: append([]float64(nil), ad...)}
		wp, gp := make([]int, n), make([]int, n)
		lapack64.Getrf(want, wp)
		ticks := 0
		ok, err := luTiled(got, gp, func() error { ticks++; return nil })
		if !ok || err != nil {
			t.Fatalf("n=%d: %v %v", n, ok, err)
		}
		for i := range wp {
			if wp[i] != gp[i] {
				t.Fatalf("n=%d: pivot %d: %d vs Getrf %d", n, i, gp[i], wp[i])
			}
		}
		if !mat.EqualApprox(mat.NewDense(n, n, got.Data), mat.NewDense(n, n, want.Data), 1e-10) {
			t.Errorf("n=%d: factors differ from Getrf", n)
		}
		if n > tileRows && ticks == 0 {
			t.Errorf("n=%d: no progress ticks", n)
		}
	}
	stop := errors.New("stop")
	a := blas64.General{Rows: 200, Cols: 200, Stride: 200, Data: make([]float64, 200*200)}
	for i := 0; i < 200; i++ {
		a.Data[i*200+i] = 1
	}
	if _, err := luTiled(a, make([]int, 200), func() error { return stop }); err != stop {
		t.Errorf("luTiled ignored the tick error: %v", err)
	}
}

// cholTiled gives lapack64.Potrf's factor and reports a matrix that is not
// positive definite.
func TestCholTiled(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	for _, n := range []int{1, 7, 64, 65, 200} {
		g := make([]float64, n*n)
		for i := range g {
			g[i] = rng.NormFloat64()
		}
		a := make([]float64, n*n) // GᵀG + nI
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, blas64.General{Rows: n, Cols: n, Stride: n, Data: g}, blas64.General{Rows: n, Cols: n, Stride: n, Data: g}, 0, blas64.General{Rows: n, Cols: n, Stride: n, Data: a})
		for i := 0; i < n; i++ {
			a[i*n+i] += float64(n)
		}
		want := blas64.Symmetric{N: n, Stride: n, Data: append([]float64(nil), a...), Uplo: blas.Upper}
		got := blas64.Symmetric{N: n, Stride: n, Data: append([]float64(nil), a...), Uplo: blas.Upper}
		if _, ok := lapack64.Potrf(want); !ok {
			t.Fatal("Potrf failed")
		}
		if ok, err := cholTiled(got, nil); !ok || err != nil {
			t.Fatalf("n=%d: %v %v", n, ok, err)
		}
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				if d := got.Data[i*n+j] - want.Data[i*n+j]; d > 1e-10 || d < -1e-10 {
					t.Fatalf("n=%d: U(%d,%d) %g vs Potrf %g", n, i, j, got.Data[i*n+j], want.Data[i*n+j])
				}
			}
		}
		a[(n-1)*n+n-1] = -1 // not positive definite
		if ok, _ := cholTiled(blas64.Symmetric{N: n, Stride: n, Data: a, Uplo: blas.Upper}, nil); ok {
			t.Errorf("n=%d: an indefinite matrix was factorised", n)
		}
	}
}
