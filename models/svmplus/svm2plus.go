// Package svmplus implements the SVM+ family of paper 000 (Xu et al.,
// "Simple and Efficient Learning using Privileged Information"):
//
//   - "svm2plus" — SVM+ with the squared hinge loss, eq (3), solved through its
//     dual (4), a standard SVM dual (α ≥ 0 without an upper bound, yᵀα = 0)
//     with the kernel K + Qλ∘(yyᵀ) on α∘y, where Qλ is eq (5) built on the
//     privileged kernel of z augmented with a constant 1 (footnote 1);
//   - "svm1plus" — Vapnik & Vashist's SVM+ with the hinge loss, eq (1), solved
//     through its 2n-variable dual (2) by the generalised SMO of
//     lupilab/models/solver/gsmo;
//
// and the experiment "svm2plus" that reproduces the paper's Tables 2–4 on
// LUPI Lab's shipped LUPI datasets.
package svmplus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"sync"
	"time"
	"unsafe"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/fastblas"
	"lupilab/models/kernel"
	"lupilab/models/model"
	"lupilab/models/solver/smo"
)

func init() {
	fit, load := model.WrapBinary("svm2plus", fitSVM2Plus, loadBinary)
	model.Register("svm2plus", fit, load)
}

// solverSettings reads eps and max_iter (defaults when absent).
func solverSettings(v model.Values) (eps float64, maxIter int) {
	eps = 1e-3
	if _, ok := v["eps"]; ok {
		eps = v.Float("eps")
	}
	if _, ok := v["max_iter"]; ok {
		maxIter = v.Int("max_iter")
	}
	if !(eps > 0) || math.IsInf(eps, 0) {
		eps = 1e-3
	}
	if maxIter < 0 {
		maxIter = 0
	}
	return eps, maxIter
}

// binModel is a fitted binary SVM+ (either loss): f(x) = Σ coefᵢ K(svᵢ, x) + b
// with coefᵢ = αᵢyᵢ over the support vectors.
type binModel struct {
	Kernel kernel.Kernel `json:"kernel"`
	SV     *model.Matrix `json:"sv"`
	Coef   []float64     `json:"coef"`
	B      float64       `json:"b"`
	Rep    *model.Report `json:"report"`
	sv     *mat.Dense
}

// Report implements model.BinaryModel.
func (m *binModel) Report() *model.Report { return m.Rep }

// Decision implements model.BinaryModel: f(x) = Σ αᵢyᵢK(xᵢ,x) + b (paper 000
// §3; privileged features are not used).
func (m *binModel) Decision(ds *data.Dataset) ([]float64, error) {
	if ds == nil || ds.X == nil {
		return nil, data.ErrNoData
	}
	return m.DecisionX(ds.X)
}

// DecisionX returns decision values for the rows of X.
func (m *binModel) DecisionX(X *mat.Dense) ([]float64, error) {
	n, d := X.Dims()
	if m.sv == nil {
		return nil, errors.New("svmplus: model has no support vectors")
	}
	if _, sd := m.sv.Dims(); sd != d {
		return nil, fmt.Errorf("svmplus: data has %d features, the model was trained on %d", d, sd)
	}
	k := m.Kernel.Cross(X, m.sv)
	out := make([]float64, n)
	for i := range out {
		var s float64
		for j, c := range m.Coef {
			s += c * k.At(i, j)
		}
		out[i] = s + m.B
		if math.IsNaN(out[i]) || math.IsInf(out[i], 0) {
			return nil, fmt.Errorf("svmplus: decision value for row %d is %v", i+1, out[i])
		}
	}
	return out, nil
}

func loadBinary(raw json.RawMessage) (model.BinaryModel, error) {
	var m binModel
	if err := model.DecodeStrict(raw, &m); err != nil {
		return nil, fmt.Errorf("svmplus: %w", err)
	}
	if err := m.SV.CheckShape("svmplus: the saved support vectors", len(m.Coef), -1); err != nil {
		return nil, err
	}
	sv, _ := m.SV.Dense()
	if err := m.Kernel.Validate(); err != nil {
		return nil, fmt.Errorf("svmplus: saved model: %w", err)
	}
	if err := model.CheckFiniteSlice("svmplus: a saved coefficient", m.Coef); err != nil {
		return nil, err
	}
	if err := model.CheckFinite("svmplus: the saved offset b", m.B); err != nil {
		return nil, err
	}
	m.sv = sv
	if m.Rep == nil {
		m.Rep = &model.Report{}
	}
	return &m, nil
}

// InputDims implements model.Shaped.
func (m *binModel) InputDims() (x, z int) {
	if m.sv == nil {
		return 0, 0
	}
	_, d := m.sv.Dims()
	return d, 0
}

// newBinModel keeps the rows with αᵢ > 0.
func newBinModel(k kernel.Kernel, X *mat.Dense, y, alpha []float64, b float64, rep *model.Report) *binModel {
	_, d := X.Dims()
	var rows []int
	for i, a := range alpha {
		if a > 0 {
			rows = append(rows, i)
		}
	}
	m := &binModel{Kernel: k, B: b, Rep: rep}
	if len(rows) == 0 {
		// f is the constant b; keep one zero-weight vector so that the
		// model stays well-formed.
		rows = []int{0}
		m.Coef = []float64{0}
	} else {
		for _, i := range rows {
			m.Coef = append(m.Coef, alpha[i]*y[i])
		}
	}
	m.sv = mat.NewDense(len(rows), d, nil)
	for t, i := range rows {
		m.sv.SetRow(t, X.RawRowView(i))
	}
	m.SV = model.MatrixOf(m.sv)
	rep.Support = nil
	for _, i := range rows {
		if alpha[i] > 0 {
			rep.Support = append(rep.Support, i)
		}
	}
	rep.NSupport = len(rep.Support)
	return m
}

// svm2Matrix serves rows of the SMO matrix of dual (4) in the variable α:
// Q = (yyᵀ)∘K + Qλ, since (α∘y)ᵀ(Qλ∘yyᵀ)(α∘y) = αᵀQλα.
type svm2Matrix struct {
	k *kernel.QMatrix // (yyᵀ)∘K
	q *qlam
	w *mat.Dense // [y∘X, V] when Q = WWᵀ (see Factor), else nil
	// full is SubRow's scratch row (the SMO asks for one row at a time).
	full []float64
}

func (m *svm2Matrix) Size() int          { return m.k.Size() }
func (m *svm2Matrix) Diag(i int) float64 { return m.k.Diag(i) + m.q.diag(i) }
func (m *svm2Matrix) Row(i int, dst []float64) {
	if m.w != nil && m.q.full == nil && m.q.rows == nil {
		// See SubRow.
		n, k := m.w.Dims()
		raw := m.w.RawMatrix()
		fastblas.MulVec(n, k, raw.Data, raw.Stride, m.w.RawRowView(i), dst[:n])
		return
	}
	m.k.Row(i, dst)
	m.q.addRow(i, dst)
}
func (m *svm2Matrix) SubRow(i int, idx []int, dst []float64) {
	if m.w != nil && m.q.full == nil && m.q.rows == nil {
		// Qλ's rows are not kept (a small factor, e.g. wdbc's r = 21): a
		// row is w_iᵀ[y∘X, V]ᵀ, one matrix–vector product over W instead
		// of a K row plus n short dot products with V (wdbc: 45 → 25 µs
		// of a 250 µs fit). With most rows asked for (no or little
		// shrinking) the product is over all of W and gathered.
		n, k := m.w.Dims()
		if 2*len(idx) >= n {
			raw := m.w.RawMatrix()
			full := m.full[:0]
			if cap(full) < n {
				full = make([]float64, n)
			}
			full = full[:n]
			fastblas.MulVec(n, k, raw.Data, raw.Stride, m.w.RawRowView(i), full)
			for t, j := range idx {
				dst[t] = full[j]
			}
			m.full = full
			return
		}
	}
	m.k.SubRow(i, idx, dst)
	m.q.addSubRow(i, idx, dst)
}

// Factor implements smo.Factored: with a linear decision kernel and Qλ in
// factor form, Q = (yyᵀ)∘(XXᵀ) + VVᵀ = WWᵀ for W = [y∘X, V], which the
// Newton polish uses instead of rows.
func (m *svm2Matrix) Factor() *mat.Dense { return m.w }

// factorMaxEntries bounds the size of svm2Factor's W (32 MB).
const factorMaxEntries = 1 << 22

// svm2Factor returns W = [y∘X, V] with WWᵀ = (yyᵀ)∘(XXᵀ) + Qλ when the
// decision kernel is linear and Qλ has the factor V, and W is small: rank
// below n/2 and at most factorMaxEntries entries; otherwise nil. W's
// storage comes from factorPool (the one-vs-rest tasks of a fit would
// each fault in a fresh n×k block: 1.5 of 18 ms on digits); release
// returns it, once the solver is done with W.
func svm2Factor(X *mat.Dense, y []float64, kx kernel.Kernel, q *qlam) (w *mat.Dense, release func()) {
	if kx.Kind != kernel.Linear || q.v == nil {
		return nil, func() {}
	}
	n, d := X.Dims()
	_, r := q.v.Dims()
	k := d + r
	if 2*k >= n || n*k > factorMaxEntries {
		return nil, func() {}
	}
	buf, _ := factorPool.Get().(*[]float64)
	if buf == nil || cap(*buf) < n*k {
		b := make([]float64, n*k)
		buf = &b
	}
	w = mat.NewDense(n, k, (*buf)[:n*k])
	for i := 0; i < n; i++ {
		row := w.RawRowView(i)
		floats.ScaleTo(row[:d], y[i], X.RawRowView(i))
		copy(row[d:], q.v.RawRowView(i))
	}
	return w, func() { factorPool.Put(buf) }
}

// factorPool recycles svm2Factor's storage.
var factorPool sync.Pool

// privileged builds Qλ for the privileged block Z with kernel kz, on z
// augmented with a constant 1 (footnote 1: K̃ + 1). The linear kernel with
// fewer augmented features than samples uses the factor form
// (LowRankQLambda); RBF and polynomial kernels whose K̃ is numerically of
// rank ≤ n/4 use a pivoted Cholesky factor of K̃ in the same factor form
// (lowRankPrivileged); every other case forms K̃ and applies eq (5) densely.
// A kernel that is not positive semi-definite by construction is first
// checked numerically (checkKernelPSD) and refused if K̃ + 1 is not PSD.
func privileged(ctx context.Context, Z *mat.Dense, kz kernel.Kernel, C, lambda float64) (*qlam, error) {
	return privilegedTick(ctx, Z, kz, C, lambda, defaultQlamOptions(), nil)
}

// privilegedTick is privileged with options qo and a progress callback
// tick, called once per column of the pivoted Cholesky factor (the dense
// path has none to offer).
func privilegedTick(ctx context.Context, Z *mat.Dense, kz kernel.Kernel, C, lambda float64, qo qlamOptions, tick func()) (*qlam, error) {
	n, s := Z.Dims()
	// A kernel that is not PSD by construction (sigmoid, polynomial with
	// coef0 < 0) is checked on its Gram matrix K̃ + 1, which the dense path
	// then reuses: QLambda's own Cholesky of λ/C·I + K̃ fails only when K̃
	// has an eigenvalue below −λ/C, and Qλ has negative eigenvalues for any
	// indefinite K̃.
	kt, err := checkKernelPSD(ctx, Z, kz, privilegedNotPSD("SVM2+", kz))
	if err != nil {
		return nil, err
	}
	if (kz.Kind == kernel.Linear || kz.Kind == "") && s+1 < n {
		// Z̃ᵀ, the augmented features by rows (lowRankQLambdaT).
		zt := mat.NewDense(s+1, n, nil)
		zr, tr := Z.RawMatrix(), zt.RawMatrix()
		for i := 0; i < n; i++ {
			for j, x := range zr.Data[i*zr.Stride : i*zr.Stride+s] {
				tr.Data[j*tr.Stride+i] = x
			}
			tr.Data[s*tr.Stride+i] = 1
		}
		v, err := lowRankQLambdaT(zt, C, lambda)
		if err != nil {
			return nil, err
		}
		return newFactorQlam(v, 0, qo.keepRowsFrom), nil
	}
	if q, ok, err := lowRankPrivileged(ctx, Z, kz, C, lambda, qo, tick); err != nil || ok {
		return q, err
	}
	if kt == nil {
		kt = gramPlusOne(kz, Z)
	}
	q, err := QLambda(ctx, kt, C, lambda)
	if err != nil {
		return nil, err
	}
	return newDenseQlam(q), nil
}

// qcache keeps the last Qλ built in a workspace (model.Workspace). Qλ
// depends on K̃, C and λ but not on the labels, so the one-vs-rest tasks of
// a multi-class fit (the paper's protocol) share it, as they share K̃ in the
// paper's timing. The entry is recognised by a copy of the privileged block
// it was built from, compared entry by entry: a hash of Z per task cost
// 3.6 % of a one-vs-rest fit under WebAssembly (no hardware hashing there),
// the comparison a fraction of that. A block of more than copyMax entries
// is recognised by a hash instead (the copy would double its memory; at
// that size the hash is a small part of a fit).
type qcache struct {
	sync.Mutex
	copyMax   int          // largest block copied (entries)
	seed      maphash.Seed // of the hash of larger blocks
	z         []float64    // Z of the entry, row-major r×c (nil: see sum)
	sum       uint64       // maphash of Z when z is nil
	r, c      int
	kz        kernel.Kernel
	C, lambda float64
	q         *qlam
}

// qcacheCopyMax is qcache's default copyMax (32 MB).
const qcacheCopyMax = 1 << 22

// qcacheKey is the workspace slot of the Qλ cache.
type qcacheKey struct{}

// workspaceQCache returns ws's Qλ cache (nil for a nil ws: nothing shared).
func workspaceQCache(ws *model.Workspace) *qcache {
	return model.WorkspaceSlot(ws, qcacheKey{}, func() *qcache {
		return &qcache{copyMax: qcacheCopyMax, seed: maphash.MakeSeed()}
	})
}

// hash is the maphash of Z's entries, row by row.
func (qc *qcache) hash(Z *mat.Dense) uint64 {
	var h maphash.Hash
	h.SetSeed(qc.seed)
	r, _ := Z.Dims()
	for i := 0; i < r; i++ {
		row := Z.RawRowView(i)
		h.Write(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(row))), 8*len(row)))
	}
	return h.Sum64()
}

// holds reports whether the entry was built from Z, kz, C and λ (qc
// locked).
func (qc *qcache) holds(Z *mat.Dense, kz kernel.Kernel, C, lambda float64) bool {
	r, c := Z.Dims()
	if qc.q == nil || qc.r != r || qc.c != c || qc.kz != kz ||
		math.Float64bits(qc.C) != math.Float64bits(C) || math.Float64bits(qc.lambda) != math.Float64bits(lambda) {
		return false
	}
	if qc.z == nil {
		return qc.sum == qc.hash(Z)
	}
	for i := 0; i < r; i++ {
		if !slices.Equal(qc.z[i*c:(i+1)*c], Z.RawRowView(i)) {
			return false
		}
	}
	return true
}

// privileged is privilegedTick through the cache: the cached Qλ when it
// was built from the same Z, kz, C and λ (hit = true), else a new one,
// which replaces the entry. A nil qc computes Qλ afresh.
func (qc *qcache) privileged(ctx context.Context, Z *mat.Dense, kz kernel.Kernel, C, lambda float64, qo qlamOptions, tick func()) (q *qlam, hit bool, err error) {
	if qc == nil {
		q, err = privilegedTick(ctx, Z, kz, C, lambda, qo, tick)
		return q, false, err
	}
	qc.Lock()
	if qc.holds(Z, kz, C, lambda) {
		q := qc.q
		qc.Unlock()
		return q, true, nil
	}
	qc.Unlock()
	q, err = privilegedTick(ctx, Z, kz, C, lambda, qo, tick)
	if err != nil {
		return nil, false, err
	}
	r, c := Z.Dims()
	var z []float64
	var sum uint64
	if r*c <= qc.copyMax {
		z = make([]float64, r*c)
		for i := 0; i < r; i++ {
			copy(z[i*c:(i+1)*c], Z.RawRowView(i))
		}
	} else {
		sum = qc.hash(Z)
	}
	qc.Lock()
	qc.z, qc.sum, qc.r, qc.c, qc.kz, qc.C, qc.lambda, qc.q = z, sum, r, c, kz, C, lambda, q
	qc.Unlock()
	return q, false, nil
}

// svm2Options are the solver settings shared by the model and the tests.
type svm2Options struct {
	smo smo.Options
	// noFactor serves Q by rows even when Q = WWᵀ has a small factor
	// (svm2Factor): tests compare the factored polish with the row path.
	noFactor bool
}

// trainSVM2 solves dual (4) for given X, labels, kernel and Qλ and returns
// the model (report included).
func trainSVM2(ctx context.Context, X *mat.Dense, y []float64, kx kernel.Kernel, q *qlam, C, lambda float64, opt model.Options, so svm2Options) (*binModel, *smo.Result, error) {
	n, _ := X.Dims()
	kq, err := kernel.NewQIn(opt.Workspace, kx, X, y, 0)
	if err != nil {
		return nil, nil, err
	}
	var w *mat.Dense
	if !so.noFactor {
		var release func()
		w, release = svm2Factor(X, y, kx, q)
		defer release()
	}
	p := &smo.Problem{Q: &svm2Matrix{k: kq, q: q, w: w}, P: make([]float64, n), Y: y}
	for i := range p.P {
		p.P[i] = -1
	}
	sopt := so.smo
	if sopt.Eps == 0 {
		sopt.Eps = 1e-3
	}
	sopt.Shrinking = true
	sopt.Polish = true // Newton steps on the free set (ill-conditioned Q at large C, see smo)
	last := time.Now()
	sopt.Progress = func(iter int, viol float64) {
		if time.Since(last) > 5*time.Millisecond {
			opt.Report(model.Progress{Fraction: -1, Iter: iter, Stage: "SMO", Message: fmt.Sprintf("violation %.3g", viol)})
			last = time.Now()
		}
	}
	res, err := smo.Solve(ctx, p, sopt)
	if errors.Is(err, smo.ErrUnbounded) {
		return nil, nil, fmt.Errorf("SVM2+: %w: α has no upper bound in dual (4), and K∘yyᵀ + Qλ is not positive definite along the direction it grows in (decision kernel %v; a decision kernel that is not positive semi-definite does that: use linear, RBF, or polynomial with coef0 ≥ 0)", err, kx)
	}
	if err != nil {
		return nil, nil, err
	}
	// An indefinite K∘yyᵀ + Qλ can also send α towards infinity without
	// smo noticing (α ≈ 1e183 with a sigmoid kernel, where the objective
	// overflows to NaN): no model from that.
	if x, ok := allFinite(res.Alpha); !ok || math.IsNaN(res.Obj) || math.IsInf(res.Obj, 0) || math.IsNaN(res.Rho) || math.IsInf(res.Rho, 0) {
		if ok {
			x = floats.Max(res.Alpha)
		}
		return nil, nil, fmt.Errorf("SVM2+: the SMO diverged (objective %v, α up to %.3g after %d iterations): dual (4) has no upper bound on α and K∘yyᵀ + Qλ is not positive semi-definite (decision kernel %v); use linear, RBF, or polynomial with coef0 ≥ 0", res.Obj, x, res.Iter, kx)
	}
	rep := &model.Report{Model: "svm2plus", NTrain: n, Converged: res.Converged, Iterations: res.Iter, Objective: res.Obj}
	rep.SetRho(res.Rho)
	if !res.Converged {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("SMO did not converge in %d iterations (violation %.3g)", res.Iter, res.Violation))
	}
	// Slacks from the correcting function: stationarity of the Lagrangian of
	// (3) in v gives (C·Z̃ᵀZ̃ + λI)v = Z̃ᵀα, so ξ = Z̃v = Z̃(C·Z̃ᵀZ̃ + λI)⁻¹Z̃ᵀα = Qλα
	// (the same push-through identity that turns this into eq 5).
	slack := q.mulVec(res.Alpha)
	// ‖w‖² = (α∘y)ᵀK(α∘y) = Σαᵢ((yyᵀ∘K)α)ᵢ with (yyᵀ∘K)α = ∇ + 1 − Qλα. At
	// w = 0 the decision is a constant: every slack is absorbed by the
	// correcting function (ξ = 1 for all, primal cost (Cn + λ)/2), which a
	// low-dimensional linear privileged kernel often makes optimal.
	var w2, sa float64
	for i, a := range res.Alpha {
		w2 += a * (res.Grad[i] + 1 - slack[i])
		sa += a
	}
	if w2 <= 1e-6*sa {
		rep.Warnings = append(rep.Warnings, "SVM2+ found the degenerate solution w = 0 (the correcting function absorbs every slack): the decision is a constant; try a richer privileged kernel (e.g. RBF)")
	}
	rep.Diagnostics = map[string][]float64{"alpha": append([]float64(nil), res.Alpha...), "slack": slack}
	rep.Extras = map[string]float64{"C": C, "lambda": lambda, "violation": res.Violation, "polishes": float64(res.Polishes), "w_norm2": w2}
	m := newBinModel(kx, X, y, res.Alpha, -res.Rho, rep)
	return m, res, nil
}

func fitSVM2Plus(ctx context.Context, train *data.Dataset, y []float64, v model.Values, opt model.Options) (model.BinaryModel, error) {
	return fitSVM2PlusWith(ctx, train, y, v, opt, defaultQlamOptions())
}

// fitSVM2PlusWith is fitSVM2Plus building Qλ with the options qo.
func fitSVM2PlusWith(ctx context.Context, train *data.Dataset, y []float64, v model.Values, opt model.Options, qo qlamOptions) (model.BinaryModel, error) {
	start := time.Now()
	C, lambda, kx, kz, err := commonParams(train, y, v, "SVM2+")
	if err != nil {
		return nil, err
	}
	// α has no upper bound in dual (4): with a decision kernel that is not
	// PSD it is not convex and often unbounded below.
	if _, err := checkKernelPSD(ctx, train.X, kx, func() error {
		return notPSDError("SVM2+", "decision", kx, "α has no upper bound in SVM2+'s dual (4), which is then not convex and often unbounded")
	}); err != nil {
		return nil, err
	}
	opt.Report(model.Progress{Fraction: 0, Stage: "Qλ (eq 5)"})
	qStart := time.Now()
	qLast := time.Now()
	tick := func() {
		if time.Since(qLast) > 5*time.Millisecond {
			opt.Report(model.Progress{Fraction: -1, Stage: "Qλ (eq 5)", Message: "pivoted Cholesky of K̃"})
			qLast = time.Now()
		}
	}
	q, cached, err := workspaceQCache(opt.Workspace).privileged(ctx, train.Z, kz, C, lambda, qo, tick)
	if err != nil {
		return nil, err
	}
	qSecs := time.Since(qStart).Seconds()
	opt.Report(model.Progress{Fraction: 0.1, Stage: "SMO"})
	eps, maxIter := solverSettings(v)
	m, _, err := trainSVM2(ctx, train.X, y, kx, q, C, lambda, opt, svm2Options{smo: smo.Options{Eps: eps, MaxIter: maxIter}})
	if err != nil {
		return nil, err
	}
	m.Rep.Params = v.Clone()
	m.Rep.TrainSeconds = time.Since(start).Seconds()
	m.Rep.Extras["qlambda_seconds"] = qSecs
	if q.rank > 0 {
		m.Rep.Extras["qlambda_rank"] = float64(q.rank) // pivoted Cholesky rank of K̃ (low-rank Qλ)
	}
	if cached {
		m.Rep.Extras["qlambda_shared"] = 1 // reused from an earlier fit in the workspace (a one-vs-rest task)
	}
	return m, nil
}

// allFinite reports whether every entry of a is finite, and the first
// that is not. x − x is 0 for finite x and NaN for ±Inf and NaN: one
// subtraction per entry (this check runs for every one-vs-rest task).
func allFinite(a []float64) (float64, bool) {
	for _, x := range a {
		if x-x != 0 {
			return x, false
		}
	}
	return 0, true
}

// commonParams reads and checks what both SVM+ models need.
func commonParams(train *data.Dataset, y []float64, v model.Values, name string) (C, lambda float64, kx, kz kernel.Kernel, err error) {
	if train == nil || train.X == nil {
		return 0, 0, kx, kz, data.ErrNoData
	}
	n := train.Rows()
	if train.Z == nil {
		return 0, 0, kx, kz, fmt.Errorf("%s needs privileged features (the dataset has no Z block)", name)
	}
	if r, _ := train.Z.Dims(); r != n {
		return 0, 0, kx, kz, fmt.Errorf("%s: Z has %d rows, X has %d", name, r, n)
	}
	if n < 2 || len(y) != n {
		return 0, 0, kx, kz, fmt.Errorf("%s: need at least 2 samples with one label each (got %d rows, %d labels)", name, n, len(y))
	}
	// The binary wrapper checks that two classes are present in the data,
	// but a declared class with no training samples leaves its one-vs-rest
	// and one-vs-one tasks with one class (TestAbsentClass).
	if err := model.CheckBinaryLabels(y); err != nil {
		return 0, 0, kx, kz, fmt.Errorf("%s: %w", name, err)
	}
	C, lambda = v.Float("C"), v.Float("lambda")
	if err := checkCL(C, lambda); err != nil {
		return 0, 0, kx, kz, err
	}
	if kx, err = kernel.FromValues(v, ""); err != nil {
		return 0, 0, kx, kz, err
	}
	if kz, err = kernel.FromValues(v, "z"); err != nil {
		return 0, 0, kx, kz, err
	}
	if kx.Kind == kernel.Precomputed || kz.Kind == kernel.Precomputed {
		return 0, 0, kx, kz, fmt.Errorf("%s: precomputed kernels are not supported", name)
	}
	return C, lambda, kx, kz, nil
}
