package fastblas

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
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

// TrsmLeft (both versions): op(T)·X = B is checked by multiplying back,
// for upper and lower T, with and without the transpose and a unit
// diagonal, on blocks of wider matrices.
func TestTrsmLeft(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, sz := range [][2]int{{1, 1}, {7, 5}, {64, 128}, {13, 3}} {
		h, w := sz[0], sz[1]
		for _, uplo := range []blas.Uplo{blas.Upper, blas.Lower} {
			for _, diag := range []blas.Diag{blas.NonUnit, blas.Unit} {
				for _, trans := range []bool{false, true} {
					// well conditioned: off-diagonal entries of order 1/h
					// (random triangular matrices with O(1) entries have
					// condition numbers exponential in h)
					td := rnd(rng, h*(h+2))
					for i := range td {
						td[i] /= float64(h)
					}
					for i := 0; i < h; i++ {
						td[i*(h+2)+i] = 1 + rng.Float64()
					}
					tri := blas64.Triangular{Uplo: uplo, Diag: diag, N: h, Stride: h + 2, Data: td}
					op := func(i, r int) float64 {
						if trans {
							i, r = r, i
						}
						switch {
						case i == r && diag == blas.Unit:
							return 1
						case i == r, (uplo == blas.Upper) == (r > i):
							return td[i*(h+2)+r]
						}
						return 0
					}
					b0 := rnd(rng, h*(w+1))
					for _, f := range []struct {
						name string
						trsm func(blas64.Triangular, bool, blas64.General)
					}{{"exported", TrsmLeft}, {"loops", trsmLeftLoop}} {
						x := blas64.General{Rows: h, Cols: w, Stride: w + 1, Data: append([]float64(nil), b0...)}
						f.trsm(tri, trans, x)
						for i := 0; i < h; i++ {
							for j := 0; j < w+1; j++ {
								got := x.Data[i*x.Stride+j]
								if j == w {
									if got != b0[i*x.Stride+j] {
										t.Fatalf("%s wrote outside the block", f.name)
									}
									continue
								}
								var s float64
								for r := 0; r < h; r++ {
									s += op(i, r) * x.Data[r*x.Stride+j]
								}
								if want := b0[i*x.Stride+j]; math.Abs(s-want) > 1e-12*(1+math.Abs(want)) {
									t.Fatalf("%s %v %v trans=%v %d×%d: (op(T)X)[%d][%d] = %v, want %v", f.name, uplo, diag, trans, h, w, i, j, s, want)
								}
							}
						}
					}
				}
			}
		}
	}
}

// AddMulT (both versions) against textbook loops.
func TestAddMulT(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, sz := range [][2]int{{1, 1}, {5, 9}, {64, 400}, {3, 2}} {
		k, n := sz[0], sz[1]
		p, x, y0 := rnd(rng, k*(n+3)), rnd(rng, k), rnd(rng, n)
		for _, f := range []struct {
			name string
			mul  func(k, n int, p []float64, ldp int, x, y []float64)
		}{{"exported", AddMulT}, {"loops", addMulTLoop}} {
			y := append([]float64(nil), y0...)
			f.mul(k, n, p, n+3, x, y)
			for j := range y {
				want := y0[j]
				for r := 0; r < k; r++ {
					want += p[r*(n+3)+j] * x[r]
				}
				if !close(y[j], want) {
					t.Fatalf("%s %d×%d: y[%d] = %v, want %v", f.name, k, n, j, y[j], want)
				}
			}
		}
	}
}

// SyrkTUpper (both versions) against textbook loops; the strict lower
// triangle and the padding stay untouched.
func TestSyrkTUpper(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, sz := range [][2]int{{1, 1}, {5, 3}, {64, 64}, {7, 13}} {
		k, n := sz[0], sz[1]
		v := blas64.General{Rows: k, Cols: n, Stride: n + 2, Data: rnd(rng, k*(n+2))}
		s0 := rnd(rng, n*(n+1))
		for _, f := range []struct {
			name string
			syrk func(float64, blas64.General, blas64.Symmetric)
		}{{"exported", SyrkTUpper}, {"loops", syrkTUpperLoop}} {
			s := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n + 1, Data: append([]float64(nil), s0...)}
			f.syrk(-1, v, s)
			for i := 0; i < n; i++ {
				for j := 0; j < n+1; j++ {
					want := s0[i*s.Stride+j]
					if j >= i && j < n {
						for r := 0; r < k; r++ {
							want -= v.Data[r*v.Stride+i] * v.Data[r*v.Stride+j]
						}
					}
					if got := s.Data[i*s.Stride+j]; !close(got, want) {
						t.Fatalf("%s %d×%d: S[%d][%d] = %v, want %v", f.name, k, n, i, j, got, want)
					}
				}
			}
		}
	}
}

// Potrf and TrsvUpper (both versions): UᵀU reproduces a positive definite
// matrix (the strict lower triangle untouched), an indefinite one is
// refused, and the triangular solves satisfy U·x = b and Uᵀ·x = b.
func TestPotrfTrsv(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 2, 5, 21, 64, 70} {
		ld := n + 3
		b := rnd(rng, n*n)
		a0 := make([]float64, n*ld)
		for i := 0; i < n; i++ {
			for j := 0; j < ld; j++ {
				a0[i*ld+j] = math.NaN() // outside the upper triangle: must stay
			}
			for j := i; j < n; j++ {
				a0[i*ld+j] = naiveDot(b[i*n:(i+1)*n], b[j*n:(j+1)*n])
			}
			a0[i*ld+i] += float64(n)
		}
		for _, f := range []struct {
			name  string
			potrf func(n int, a []float64, lda int) bool
			trsv  func(u blas64.Triangular, trans bool, x []float64)
		}{
			{"exported", func(n int, a []float64, lda int) bool {
				_, ok := Potrf(blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: lda, Data: a})
				return ok
			}, TrsvUpper},
			{"loops", potrfLoop, trsvUpperLoop},
		} {
			a := append([]float64(nil), a0...)
			if !f.potrf(n, a, ld) {
				t.Fatalf("%s n = %d: positive definite matrix refused", f.name, n)
			}
			for i := 0; i < n; i++ {
				for j := 0; j < ld; j++ {
					if (j < i || j >= n) && !math.IsNaN(a[i*ld+j]) {
						t.Fatalf("%s n = %d: wrote outside the upper triangle at (%d, %d)", f.name, n, i, j)
					}
				}
				for j := i; j < n; j++ {
					var s float64
					for r := 0; r <= i; r++ {
						s += a[r*ld+i] * a[r*ld+j]
					}
					if !close(s, a0[i*ld+j]) {
						t.Fatalf("%s n = %d: (UᵀU)[%d][%d] = %v, want %v", f.name, n, i, j, s, a0[i*ld+j])
					}
				}
			}
			u := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: ld, Data: a}
			for _, trans := range []bool{false, true} {
				rhs := rnd(rng, n)
				x := append([]float64(nil), rhs...)
				f.trsv(u, trans, x)
				for i := 0; i < n; i++ {
					var s float64
					for r := 0; r < n; r++ {
						ui, ur := i, r
						if trans {
							ui, ur = r, i
						}
						if ur >= ui {
							s += a[ui*ld+ur] * x[r]
						}
					}
					if math.Abs(s-rhs[i]) > 1e-12*(1+math.Abs(rhs[i])) {
						t.Fatalf("%s n = %d trans = %v: (op(U)x)[%d] = %v, want %v", f.name, n, trans, i, s, rhs[i])
					}
				}
			}
			if n > 1 {
				bad := append([]float64(nil), a0...)
				bad[(n-1)*ld+n-1] = -1
				if f.potrf(n, bad, ld) {
					t.Errorf("%s n = %d: indefinite matrix accepted", f.name, n)
				}
			}
		}
	}
}
