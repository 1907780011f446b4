package ncqp

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// luTick/luSolve (blocked, with ticks) against mat.LU on matrices that span
// several panels, and cholTick against mat.Cholesky.
func TestBlockedFactorisations(t *testing.T) {
	for _, w := range []int{tickWork, 500} { // 500: chunked trailing updates
		testBlocked(t, w)
	}
}

func testBlocked(t *testing.T, work int) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 5, luBlock, luBlock + 1, 2*luBlock + 17} {
		a := make([]float64, n*n)
		for i := range a {
			a[i] = r.NormFloat64()
		}
		b := make([]float64, n)
		for i := range b {
			b[i] = r.NormFloat64()
		}
		var want mat.VecDense
		var lu mat.LU
		lu.Factorize(mat.NewDense(n, n, append([]float64(nil), a...)))
		if err := lu.SolveVecTo(&want, false, mat.NewVecDense(n, append([]float64(nil), b...))); err != nil {
			t.Fatal(err)
		}
		ticks := 0
		got := append([]float64(nil), b...)
		ipiv := make([]int, n)
		if !luTickEvery(a, n, ipiv, func() { ticks++ }, work) {
			t.Fatalf("n=%d: luTick failed", n)
		}
		luSolve(a, n, ipiv, got)
		for i := range got {
			if math.Abs(got[i]-want.AtVec(i)) > 1e-9*(1+math.Abs(want.AtVec(i))) {
				t.Fatalf("n=%d: x[%d] = %v, mat.LU %v", n, i, got[i], want.AtVec(i))
			}
		}
		if n > luBlock && ticks < 2 {
			t.Errorf("n=%d: %d ticks", n, ticks)
		}
		// SPD: BᵀB + I.
		bm := mat.NewDense(n, n, a)
		var s mat.SymDense
		s.SymOuterK(1, bm.T())
		for i := 0; i < n; i++ {
			s.SetSym(i, i, s.At(i, i)+1)
		}
		var ch mat.Cholesky
		if !ch.Factorize(&s) {
			t.Fatal("not SPD")
		}
		var u mat.TriDense
		ch.UTo(&u)
		full := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				full[i*n+j] = s.At(i, j)
			}
		}
		if !choleskyTickEvery(full, n, nil, work) {
			t.Fatalf("n=%d: cholTick failed", n)
		}
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				if math.Abs(full[i*n+j]-u.At(i, j)) > 1e-9*(1+math.Abs(u.At(i, j))) {
					t.Fatalf("n=%d: U[%d][%d] = %v, mat.Cholesky %v", n, i, j, full[i*n+j], u.At(i, j))
				}
			}
		}
	}
	sing := []float64{1, 2, 2, 4}
	if luTick(sing, 2, make([]int, 2), nil) {
		t.Error("singular matrix accepted")
	}
}
