package fastblas

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
)

func rnd(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

// naiveDot is the textbook sum, the reference for both implementations.
func naiveDot(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

func close(a, b float64) bool { return math.Abs(a-b) <= 1e-12*(1+math.Abs(b)) }

// Both the exported kernels (gonum natively, the loops under wasm) and the
// loop versions agree with textbook loops, for lengths that are and are
// not multiples of four and for strides wider than the rows.
func TestKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range [][3]int{{1, 1, 1}, {3, 5, 7}, {17, 81, 83}, {64, 65, 65}} {
		m, k, lda := sz[0], sz[1], sz[2]
		a, x := rnd(rng, m*lda), rnd(rng, k)
		for _, f := range []struct {
			name   string
			dot    func(a, b []float64) float64
			mulVec func(m, n int, a []float64, lda int, x, y []float64)
			gram   func(m, k int, a []float64, lda int, c []float64, ldc int)
			addABt func(b, a, c []float64, r, m, w int)
		}{{"exported", Dot, MulVec, GramUpper, AddABt}, {"loops", dotLoop, mulVecLoop, gramUpperLoop, addABtLoop}} {
			if d, want := f.dot(x, append(append([]float64(nil), x...), 9)), naiveDot(x, x); !close(d, want) {
				t.Errorf("%s Dot %v, want %v", f.name, d, want)
			}
			y := make([]float64, m)
			f.mulVec(m, k, a, lda, x, y)
			for i := range y {
				if want := naiveDot(a[i*lda:i*lda+k], x); !close(y[i], want) {
					t.Errorf("%s MulVec %d×%d: y[%d] = %v, want %v", f.name, m, k, i, y[i], want)
				}
			}
			ldc := m + 2
			c := make([]float64, m*ldc)
			for i := range c {
				c[i] = math.NaN() // the upper triangle must be overwritten, the rest left alone
			}
			f.gram(m, k, a, lda, c, ldc)
			for i := 0; i < m; i++ {
				for j := 0; j < ldc; j++ {
					v := c[i*ldc+j]
					if j < i || j >= m {
						if !math.IsNaN(v) {
							t.Errorf("%s GramUpper wrote C[%d][%d] outside the upper triangle", f.name, i, j)
						}
						continue
					}
					if want := naiveDot(a[i*lda:i*lda+k], a[j*lda:j*lda+k]); !close(v, want) {
						t.Errorf("%s GramUpper C[%d][%d] = %v, want %v", f.name, i, j, v, want)
					}
				}
			}
			r, w := m, m+1
			bm, am := rnd(rng, r*k), rnd(rng, w*k)
			c0 := rnd(rng, r*w)
			cc := append([]float64(nil), c0...)
			f.addABt(bm, am, cc, r, k, w)
			for i := 0; i < r; i++ {
				for j := 0; j < w; j++ {
					if want := c0[i*w+j] + naiveDot(bm[i*k:(i+1)*k], am[j*k:(j+1)*k]); !close(cc[i*w+j], want) {
						t.Errorf("%s AddABt C[%d][%d] = %v, want %v", f.name, i, j, cc[i*w+j], want)
					}
				}
			}
		}
	}
}

// GemmAcc (both versions) against textbook loops, with and without the
// transpose, on blocks of wider matrices (strides larger than the blocks).
func TestGemmAcc(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sz := range [][3]int{{1, 1, 1}, {5, 7, 3}, {64, 128, 67}, {13, 9, 64}} {
		m, n, k := sz[0], sz[1], sz[2]
		for _, trans := range []bool{false, true} {
			ar, ac := m, k
			if trans {
				ar, ac = k, m
			}
			a := blas64.General{Rows: ar, Cols: ac, Stride: ac + 3, Data: rnd(rng, ar*(ac+3))}
			b := blas64.General{Rows: k, Cols: n, Stride: n + 1, Data: rnd(rng, k*(n+1))}
			c0 := rnd(rng, m*(n+2))
			for _, f := range []struct {
				name string
				gemm func(bool, float64, blas64.General, blas64.General, blas64.General)
			}{{"exported", GemmAcc}, {"loops", gemmAccLoop}} {
				c := blas64.General{Rows: m, Cols: n, Stride: n + 2, Data: append([]float64(nil), c0...)}
				f.gemm(trans, -0.5, a, b, c)
				for i := 0; i < m; i++ {
					for j := 0; j < n+2; j++ {
						want := c0[i*c.Stride+j]
						if j < n {
							var s float64
							for r := 0; r < k; r++ {
								var air float64
								if trans {
									air = a.Data[r*a.Stride+i]
								} else {
									air = a.Data[i*a.Stride+r]
								}
								s += air * b.Data[r*b.Stride+j]
							}
							want += -0.5 * s
						}
						if got := c.Data[i*c.Stride+j]; !close(got, want) {
							t.Fatalf("%s trans=%v %d×%d×%d: C[%d][%d] = %v, want %v", f.name, trans, m, n, k, i, j, got, want)
						}
					}
				}
			}
		}
	}
}
