package qp

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// FuzzSolve decodes arbitrary bytes into a small QP (P = FᵀF so it is PSD,
// plus arbitrary q, constraints and bounds, possibly NaN/Inf) and checks that
// Solve never panics, returns only the documented errors, and that a
// converged result satisfies the KKT conditions.
//
//	go test -fuzz FuzzSolve -fuzztime 30s ./models/solver/qp
func FuzzSolve(f *testing.F) {
	f.Add([]byte{3, 1, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Add([]byte{5, 2, 0, 3, 200, 100, 50, 25, 12, 6, 3, 1, 0, 255, 128, 64, 32, 16, 8, 4, 2, 1, 9, 9, 9, 9, 9, 9, 9, 9})
	f.Add([]byte{2, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		p := fuzzProblem(data)
		if p == nil {
			return
		}
		r, err := Solve(context.Background(), p, Options{MaxIter: 60})
		checkFuzzResult(t, p, r, err)
	})
}

// fuzzProblem decodes data into a QP (nil when data is too short).
func fuzzProblem(data []byte) *Problem {
	if len(data) < 4 {
		return nil
	}
	n := 1 + int(data[0])%6
	mA := int(data[1]) % 4
	mE := int(data[2]) % 3
	flags := data[3]
	data = data[4:]
	pos := 0
	next := func() float64 {
		if pos+2 > len(data) {
			pos++
			return float64(pos%7) - 3
		}
		v := int16(binary.LittleEndian.Uint16(data[pos:]))
		pos += 2
		switch v {
		case math.MaxInt16:
			return math.Inf(1)
		case math.MinInt16:
			return math.Inf(-1)
		case math.MaxInt16 - 1:
			return math.NaN()
		}
		return float64(v) / 4096
	}
	F := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := next()
			if math.IsNaN(v) || math.IsInf(v, 0) {
				v = 0
			}
			F.Set(i, j, v)
		}
	}
	p := &Problem{Q: make([]float64, n)}
	if flags&1 != 0 {
		P := mat.NewSymDense(n, nil)
		P.SymOuterK(1, F.T())
		p.P = P
	}
	for i := range p.Q {
		p.Q[i] = next()
	}
	rows := func(m int) (*mat.Dense, []float64) {
		M, v := mat.NewDense(m, n, nil), make([]float64, m)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				M.Set(i, j, next())
			}
			v[i] = next()
		}
		return M, v
	}
	if mA > 0 {
		p.A, p.B = rows(mA)
	}
	if mE > 0 {
		p.E, p.D = rows(mE)
	}
	bounds := func() []float64 {
		b := make([]float64, n)
		for i := range b {
			b[i] = next()
		}
		return b
	}
	if flags&2 != 0 {
		p.Lower = bounds()
	}
	if flags&4 != 0 {
		p.Upper = bounds()
	}
	return p
}

// checkFuzzResult checks that Solve returned only documented errors, no
// NaN, and, when it converged, a KKT point up to the rounding noise of
// the data.
func checkFuzzResult(t *testing.T, p *Problem, r *Result, err error) {
	t.Helper()
	if err != nil {
		for _, e := range []error{ErrInput, ErrInfeasible, ErrUnbounded, ErrNotPSD} {
			if errors.Is(err, e) {
				return
			}
		}
		t.Fatalf("undocumented error %v", err)
	}
	for _, v := range r.X {
		if math.IsNaN(v) {
			t.Fatalf("NaN in X with status %v", r.Status)
		}
	}
	if !r.Converged {
		return
	}
	// Degenerate constraint sets (repeated rows) let multipliers
	// grow along a null direction, so the dual residual is judged
	// relative to the multiplier terms too, as the stopping test
	// does (RelDualRes); the gap likewise (RelGap, in units of the
	// cost-scaled objective). The gap xᵀ(Px + q) + … cannot be computed
	// more accurately than the rounding in Px for huge x (nearly
	// singular P), so that noise level is allowed on top.
	// The same holds for the dual residual, whose Px term carries
	// rounding error ~ n·ε·‖P‖·‖x‖.
	noise, noiseD := 0.0, 0.0
	nx := 0.0
	for _, v := range r.X {
		nx = math.Max(nx, math.Abs(v))
	}
	if p.P != nil {
		noiseD = 1e3 * 2.2e-16 * float64(len(p.Q)) * nx * mat.Norm(p.P, math.Inf(1))
		noise = noiseD * nx
	}
	// Likewise the primal residual: Ax and Ex carry rounding error
	// ~ n·ε·‖A‖·‖x‖.
	noiseP := 0.0
	for _, M := range []*mat.Dense{p.A, p.E} {
		if M != nil {
			noiseP = math.Max(noiseP, 1e3*2.2e-16*float64(len(p.Q))*nx*mat.Norm(M, math.Inf(1)))
		}
	}
	pr, _, _ := kktCheck(p, r)
	if (pr > 1e-6 && r.PrimalRes > noiseP) || (r.RelDualRes > 1e-6 && r.DualRes > noiseD) || (r.RelGap > 1e-6 && r.Gap > noise) {
		t.Logf("%+v\nP=%v q=%v A=%v b=%v E=%v d=%v l=%v u=%v", r, p.P, p.Q, p.A, p.B, p.E, p.D, p.Lower, p.Upper)
		t.Fatalf("converged but KKT primal %g, relative dual residual %g, gap %g (rounding noise %g)", pr, r.RelDualRes, r.Gap, noise)
	}
}
