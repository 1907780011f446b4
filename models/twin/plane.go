package twin

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/kernel"
	"lupilab/models/model"
	"lupilab/models/solver/ncqp"
)

// features maps rows of one view to the augmented vectors the twin problems
// work with: (x, 1) for the linear kernel, (K(x, Cᵗ), 1) for the others,
// Cᵗ being the training rows of that view (paper 001, section 3.3).
type features struct {
	Kernel kernel.Kernel `json:"kernel"`
	Basis  *model.Matrix `json:"basis,omitempty"` // Cᵗ; nil for the linear kernel
	Dim    int           `json:"dim"`             // input columns
	basis  *mat.Dense
}

func newFeatures(k kernel.Kernel, train *mat.Dense) *features {
	_, d := train.Dims()
	f := &features{Kernel: k, Dim: d}
	if !isLinear(k) {
		f.basis = train
		f.Basis = model.MatrixOf(train)
	}
	return f
}

func (f *features) restore() error {
	if isLinear(f.Kernel) {
		return nil
	}
	b, err := f.Basis.Dense()
	if err != nil {
		return err
	}
	if b == nil {
		return errors.New("saved twin model: kernel model without its training rows")
	}
	f.basis = b
	return nil
}

// augment returns [φ(x) 1] for every row of x.
func (f *features) augment(x *mat.Dense) (*mat.Dense, error) {
	n, d := x.Dims()
	if d != f.Dim {
		return nil, fmt.Errorf("the model was trained on %d columns, the data has %d", f.Dim, d)
	}
	var phi *mat.Dense
	if isLinear(f.Kernel) {
		phi = x
	} else {
		phi = cross(f.Kernel, x, f.basis)
	}
	_, p := phi.Dims()
	out := mat.NewDense(n, p+1, nil)
	for i := 0; i < n; i++ {
		row := out.RawRowView(i)
		copy(row, phi.RawRowView(i))
		row[p] = 1
	}
	return out, nil
}

// plane is ω·φ(x) + b = 0.
type plane struct {
	W []float64 `json:"w"`
	B float64   `json:"b"`
}

func planeOf(u []float64) (plane, error) {
	p := plane{W: append([]float64(nil), u[:len(u)-1]...), B: u[len(u)-1]}
	if n := p.norm(); !(n > 0) || math.IsInf(n, 0) || math.IsNaN(p.B) {
		return p, errors.New("a twin plane came out with a zero or non-finite normal ω (try a larger C or a larger ridge eps)")
	}
	return p, nil
}

func (p plane) norm() float64 {
	s := 0.0
	for _, v := range p.W {
		s += v * v
	}
	return math.Sqrt(s)
}

// signed returns (ω·φ + b)/‖ω‖ for every augmented row.
func (p plane) signed(aug *mat.Dense) []float64 {
	n, _ := aug.Dims()
	nrm := p.norm()
	out := make([]float64, n)
	for i := range out {
		row := aug.RawRowView(i)
		s := p.B
		for j, w := range p.W {
			s += w * row[j]
		}
		out[i] = s / nrm
	}
	return out
}

// system holds, for one twin plane, Y = M⁻¹Rᵀ and H = R M⁻¹ Rᵀ with
// M = Sᵀ diag(w) S + εI (S: rows of the plane's own class, w: their
// weights; R: the kept constraint rows of the other class, already signed).
// ε = eps · tr(SᵀWS)/p is a ridge relative to the average diagonal, so that
// scaling every weight by a constant scales M exactly (this keeps the
// WLTSVM ≡ TWSVM identity exact); M is singular whenever the class has fewer
// rows than p = features + 1, which is always the case for kernel twin SVMs.
type system struct {
	Y     *mat.Dense
	H     *mat.SymDense
	Ridge float64
	SW    *mat.Dense // diag(√w)·S, so that uᵀMu = ‖SW·u‖² + ε‖u‖²
	R     *mat.Dense // the signed constraint rows
}

func newSystem(s *mat.Dense, w []float64, r *mat.Dense, eps float64) (*system, error) {
	return newSystemTick(s, w, r, eps, nil)
}

// tickFlops is about how many multiply–adds newSystemTick does between two
// calls of its tick (a few ms in the browser).
const tickFlops = 1 << 20

// newSystemTick is newSystem calling tick (when not nil) every ~tickFlops
// of work and stopping at its first error (progress and cancellation for
// the browser). The products are split into blocks of rows/columns; the
// results are those of the unsplit products.
func newSystemTick(s *mat.Dense, w []float64, r *mat.Dense, eps float64, tick func() error) (*system, error) {
	if tick == nil {
		tick = func() error { return nil }
	}
	l, p := s.Dims()
	sw := mat.NewDense(l, p, nil)
	for i := 0; i < l; i++ {
		sq := math.Sqrt(w[i])
		dst, src := sw.RawRowView(i), s.RawRowView(i)
		for j, v := range src {
			dst[j] = sq * v
		}
	}
	m := mat.NewSymDense(p, nil)
	mraw := m.RawSymmetric()
	step := max(1, tickFlops/max(1, p*p/2))
	for i0 := 0; i0 < l; i0 += step { // m = Σ over row blocks of swᵀsw
		i1 := min(l, i0+step)
		blk := sw.RawMatrix()
		blk.Rows, blk.Data = i1-i0, blk.Data[i0*blk.Stride:]
		blas64.Syrk(blas.Trans, 1, blk, 1, mraw)
		if err := tick(); err != nil {
			return nil, err
		}
	}
	tr := 0.0
	for i := 0; i < p; i++ {
		tr += m.At(i, i)
	}
	if !(tr > 0) {
		return nil, errors.New("the class's weighted scatter matrix is zero")
	}
	ridge := eps * tr / float64(p)
	var ch mat.Cholesky
	for try := 0; ; try++ {
		mr := mat.NewSymDense(p, nil)
		mr.CopySym(m)
		for i := 0; i < p; i++ {
			mr.SetSym(i, i, mr.At(i, i)+ridge)
		}
		// Blocked Cholesky with ticks (the browser yields in them), then
		// handed to mat.Cholesky for the solves.
		raw := mr.RawSymmetric()
		var tickErr error
		ok := ncqp.CholeskyTick(raw.Data, p, func() {
			if tickErr == nil {
				tickErr = tick()
			}
		})
		if tickErr != nil {
			return nil, tickErr
		}
		if ok {
			ch.SetFromU(mat.NewTriDense(p, mat.Upper, raw.Data))
			break
		}
		if try == 8 {
			return nil, fmt.Errorf("cannot factorise XᵀDX + εI even with ε = %g", ridge)
		}
		ridge *= 10
	}
	if err := tick(); err != nil {
		return nil, err
	}
	mr, _ := r.Dims()
	y := mat.NewDense(p, mr, nil)
	step = max(1, tickFlops/max(1, p*p))
	for j0 := 0; j0 < mr; j0 += step { // y = (XᵀDX + εI)⁻¹rᵀ, a block of columns at a time
		j1 := min(mr, j0+step)
		var yb mat.Dense
		if err := ch.SolveTo(&yb, r.Slice(j0, j1, 0, p).T()); err != nil {
			return nil, fmt.Errorf("solving with XᵀDX + εI: %w", err)
		}
		y.Slice(0, p, j0, j1).(*mat.Dense).Copy(&yb)
		if err := tick(); err != nil {
			return nil, err
		}
	}
	h := mat.NewDense(mr, mr, nil)
	step = max(1, tickFlops/max(1, p*mr))
	for i0 := 0; i0 < mr; i0 += step { // h = r·y, a block of rows at a time
		i1 := min(mr, i0+step)
		h.Slice(i0, i1, 0, mr).(*mat.Dense).Mul(r.Slice(i0, i1, 0, p), y)
		if err := tick(); err != nil {
			return nil, err
		}
	}
	hs := mat.NewSymDense(mr, nil)
	for i := 0; i < mr; i++ {
		for j := i; j < mr; j++ {
			hs.SetSym(i, j, 0.5*(h.At(i, j)+h.At(j, i)))
		}
	}
	return &system{Y: y, H: hs, Ridge: ridge, SW: sw, R: r}, nil
}

// planeFrom returns u = Y·c.
func (s *system) planeFrom(c []float64) []float64 {
	p, _ := s.Y.Dims()
	u := mat.NewVecDense(p, nil)
	u.MulVec(s.Y, mat.NewVecDense(len(c), c))
	return u.RawVector().Data
}

// quad returns ½uᵀMu.
func (s *system) quad(u []float64) float64 {
	v := mat.NewVecDense(len(u), u)
	var t mat.VecDense
	t.MulVec(s.SW, v)
	return 0.5 * (mat.Dot(&t, &t) + s.Ridge*mat.Dot(v, v))
}

// margins returns R·u (one value per constraint row).
func (s *system) margins(u []float64) []float64 {
	m, _ := s.R.Dims()
	var t mat.VecDense
	t.MulVec(s.R, mat.NewVecDense(len(u), u))
	out := make([]float64, m)
	for i := range out {
		out[i] = t.AtVec(i)
	}
	return out
}

// rowsOf returns the rows idx of a, each multiplied by sign.
func rowsOf(a *mat.Dense, idx []int, sign float64) *mat.Dense {
	_, c := a.Dims()
	out := mat.NewDense(len(idx), c, nil)
	for r, i := range idx {
		dst := out.RawRowView(r)
		for j, v := range a.RawRowView(i) {
			dst[j] = sign * v
		}
	}
	return out
}

// checkView rejects a view whose every column is constant (no information:
// the graphs and planes are undefined) and returns a warning naming the
// constant columns otherwise; these are harmless (the ridge handles the
// singularity they cause in the linear case) but worth knowing.
func checkView(name string, x *mat.Dense) (string, error) {
	n, d := x.Dims()
	var constant []int
	for j := 0; j < d; j++ {
		v0 := x.At(0, j)
		same := true
		for i := 1; i < n; i++ {
			if x.At(i, j) != v0 {
				same = false
				break
			}
		}
		if same {
			constant = append(constant, j+1)
		}
	}
	if len(constant) == d {
		return "", fmt.Errorf("every column of view %s is constant on the training rows: the view carries no information", name)
	}
	if len(constant) > 0 {
		if len(constant) > 8 {
			return fmt.Sprintf("view %s: %d constant columns (e.g. %v); they carry no information", name, len(constant), constant[:8]), nil
		}
		return fmt.Sprintf("view %s: constant columns %v carry no information", name, constant), nil
	}
	return "", nil
}

// checkClasses validates the class sizes against k (k ≤ 0: no graph).
func checkClasses(train *data.Dataset, pos, neg []int, k, minSize int) error {
	if len(pos) == 0 || len(neg) == 0 {
		return errors.New("twin SVMs need samples of both classes (only one class is present)")
	}
	posName, negName := "+1", "−1"
	if len(train.Classes) == 2 {
		posName, negName = train.Classes[1], train.Classes[0]
	}
	for _, c := range []struct {
		name string
		n    int
	}{{posName, len(pos)}, {negName, len(neg)}} {
		if c.n < minSize {
			return fmt.Errorf("class %q has %d sample(s); this model needs at least %d per class", c.name, c.n, minSize)
		}
		if k > c.n {
			return fmt.Errorf("k = %d neighbours exceeds the %d samples of class %q (use k ≤ %d)", k, c.n, c.name, c.n)
		}
	}
	return nil
}
