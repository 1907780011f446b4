package svmplus

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/cputime"
	"lupilab/models/data"
	"lupilab/models/kernel"
	"lupilab/models/model"
	"lupilab/models/solver/ncqp"
	"lupilab/models/solver/qp"
)

// Test flags of the benchmarks (go test -bench Table ./models/svmplus -args
// -svmplus.n=250,500 -svmplus.zkernel=rbf), passed by scripts/bench-svmplus.sh.
var (
	flagK       = flag.Int("svmplus.k", 10, "benchmark data: latent dimension that decides the label")
	flagD       = flag.Int("svmplus.d", 20, "benchmark data: dimension of X")
	flagXNoise  = flag.Float64("svmplus.xnoise", 1, "benchmark data: noise on X")
	flagS       = flag.Int("svmplus.s", 30, "benchmark data: privileged dimension (zgamma = 1/s)")
	flagN       = flag.String("svmplus.n", "250,500,1000,2000,4000", "BenchmarkTable: sizes")
	flagZKernel = flag.String("svmplus.zkernel", "linear", "BenchmarkTable: privileged kernel (linear or rbf)")
	flagC       = flag.String("svmplus.C", "1", "BenchmarkTable: C")
	flagLambda  = flag.String("svmplus.lambda", "1", "BenchmarkTable: λ")
	flagLimit   = flag.Float64("svmplus.limit", 300, "BenchmarkTable: wall-clock limit per SVM1+ fit in seconds")
	flagQDense  = flag.Bool("svmplus.qdense", false, "BenchmarkTable: exact dense Qλ only (no pivoted-Cholesky low-rank Qλ)")
	flagQRows   = flag.Bool("svmplus.qrows", false, "BenchmarkTable: serve a low-rank Qλ by rows from its factor whatever its rank")
	flagQPMaxN  = flag.Int("svmplus.qpmaxn", 0, "BenchmarkTable: also solve SVM1+ by the dense interior-point QP up to this n")
)

// benchData makes a LUPI problem: a latent u ∈ R¹⁰ (-svmplus.k changes the
// dimension) decides the label, X sees u through a random map with heavy
// noise (d = 20, noise 1; -svmplus.d and -svmplus.xnoise change them), Z
// through another with light noise (s = 30; -svmplus.s changes it).
func benchData(n int, seed uint64) *data.Dataset {
	r := rand.New(rand.NewPCG(seed, 99))
	k, d, xnoise, s := *flagK, *flagD, *flagXNoise, benchS()
	w := make([]float64, k)
	for i := range w {
		w[i] = r.NormFloat64()
	}
	A := make([]float64, k*d)
	B := make([]float64, k*s)
	for i := range A {
		A[i] = r.NormFloat64() / math.Sqrt(float64(k))
	}
	for i := range B {
		B[i] = r.NormFloat64() / math.Sqrt(float64(k))
	}
	ds := &data.Dataset{Name: "bench", Kind: data.KindLUPI, X: mat.NewDense(n, d, nil), Z: mat.NewDense(n, s, nil), Classes: []string{"neg", "pos"}}
	u := make([]float64, k)
	for i := 0; i < n; i++ {
		var t float64
		for j := range u {
			u[j] = r.NormFloat64()
			t += u[j] * w[j]
		}
		c := 0
		if t > 0 {
			c = 1
		}
		ds.Y = append(ds.Y, c)
		for j := 0; j < d; j++ {
			var v float64
			for l := range u {
				v += A[l*d+j] * u[l]
			}
			ds.X.Set(i, j, v+xnoise*r.NormFloat64())
		}
		for j := 0; j < s; j++ {
			var v float64
			for l := range u {
				v += B[l*s+j] * u[l]
			}
			ds.Z.Set(i, j, v+0.1*r.NormFloat64())
		}
	}
	return ds
}

func timeFit(ctx context.Context, id string, ds *data.Dataset, v model.Values) (float64, *model.Report, error) {
	return timeFitWith(ctx, id, nil, ds, v)
}

// timeFitWith is timeFit fitting with fit instead of the registered
// model's Fit (when not nil).
func timeFitWith(ctx context.Context, id string, fit model.FitFunc, ds *data.Dataset, v model.Values) (float64, *model.Report, error) {
	spec, err := model.Lookup(id)
	if err != nil {
		return 0, nil, err
	}
	if fit == nil {
		fit = spec.Fit
	}
	rv, err := spec.Resolve(v)
	if err != nil {
		return 0, nil, err
	}
	c0, ok0 := cputime.Process()
	start := time.Now()
	f, err := fit(ctx, ds, rv, model.Options{})
	secs := time.Since(start).Seconds()
	if c1, ok1 := cputime.Process(); ok0 && ok1 {
		secs = c1 - c0 // CPU time: robust to other processes on a shared machine
	}
	if err != nil {
		return secs, nil, err
	}
	return secs, f.Report(), nil
}

// BenchmarkTable times SVM2+ against the SVM and SVM1+ for growing n
// (process CPU seconds per fit, cpu-s/op; binary problems from benchData,
// standardised), one sub-benchmark per size and model: svm, svm2plus,
// svm1plus (stopped at the -svmplus.limit wall clock: stopped = 1), floor
// (what any exact eq (5) costs for a numerically full-rank K̃: K̃ and one
// Cholesky) for an RBF privileged kernel, and svm1plus-qp (dual (2) by the dense interior-point
// QP, as the paper timed SVM1+ with MOSEK) up to -svmplus.qpmaxn.
// scripts/bench-svmplus.sh prints the table and ratios from them.
// -svmplus.qdense forces the exact dense Qλ (the "before" of the low-rank
// path), -svmplus.qrows serves a low-rank Qλ by rows from its factor
// whatever its rank (instead of keeping the rows it computes from rank
// qlamOptions.keepRowsFrom on).
func BenchmarkTable(b *testing.B) {
	var sizes []int
	for _, f := range strings.Split(*flagN, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			b.Fatal(err)
		}
		sizes = append(sizes, n)
	}
	zk, C, lam := *flagZKernel, *flagC, *flagLambda
	cf, err1 := strconv.ParseFloat(C, 64)
	lf, err2 := strconv.ParseFloat(lam, 64)
	if err1 != nil || err2 != nil {
		b.Fatalf("-svmplus.C %q, -svmplus.lambda %q: not numbers", C, lam)
	}
	qo := defaultQlamOptions()
	if *flagQRows {
		qo.keepRowsFrom = math.MaxInt
	}
	if *flagQDense {
		qo.lowRankCap = 0
	}
	fit2, _ := model.WrapBinary("svm2plus", func(ctx context.Context, train *data.Dataset, y []float64, v model.Values, opt model.Options) (model.BinaryModel, error) {
		return fitSVM2PlusWith(ctx, train, y, v, opt, qo)
	}, loadBinary)
	kz := kernel.Kernel{Kind: kernel.Linear}
	if zk == "rbf" {
		kz = kernel.Kernel{Kind: kernel.RBF, Gamma: 1 / float64(benchS())}
	}
	for _, n := range sizes {
		ds := benchData(n, uint64(n))
		sc, _ := data.FitScaler(ds, "standard")
		ds = sc.Apply(ds)
		common := model.Values{"C": C, "kernel": "linear"}
		plus := model.Values{"C": C, "lambda": lam, "kernel": "linear", "zkernel": zk, "zgamma": strconv.FormatFloat(1/float64(benchS()), 'g', -1, 64)}
		for _, c := range []struct {
			id  string
			fit model.FitFunc
			v   model.Values
		}{{"svm", nil, common}, {"svm2plus", fit2, plus}, {"svm1plus", nil, plus}} {
			b.Run(fmt.Sprintf("n=%d/%s", n, c.id), func(b *testing.B) {
				var cpu float64
				var rep *model.Report
				for i := 0; i < b.N; i++ {
					ctx, cancel := context.WithTimeout(context.Background(), time.Duration(*flagLimit*float64(time.Second)))
					s, r, err := timeFitWith(ctx, c.id, c.fit, ds, c.v)
					cancel()
					cpu += s
					if err != nil && c.id == "svm1plus" && ctx.Err() != nil {
						b.ReportMetric(1, "stopped") // CPU seconds spent before the wall-clock limit
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					rep = r
				}
				b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
				if rep == nil {
					return
				}
				b.ReportMetric(float64(rep.Iterations), "it")
				b.ReportMetric(float64(rep.NSupport), "SVs")
				b.ReportMetric(boolMetric(len(rep.Warnings) > 0), "degenerate") // the w = 0 optimum
				if c.id != "svm" {
					b.ReportMetric(rep.Extras["polishes"], "polishes")
				}
				if c.id == "svm2plus" {
					b.ReportMetric(rep.Extras["w_norm2"], "w²")
					b.ReportMetric(rep.Extras["qlambda_seconds"], "qλ-s")
					if k, ok := rep.Extras["qlambda_rank"]; ok {
						b.ReportMetric(k, "rank")
					}
				}
			})
		}
		if zk == "rbf" {
			b.Run(fmt.Sprintf("n=%d/floor", n), func(b *testing.B) {
				var tg, tc float64
				for i := 0; i < b.N; i++ {
					tg, tc = qlambdaFloor(ds.Z, kz, lf/cf)
				}
				b.ReportMetric(tg, "gram-cpu-s")
				b.ReportMetric(tc, "chol-cpu-s")
				b.ReportMetric(tg+tc, "cpu-s/op")
			})
		}
		if n <= *flagQPMaxN {
			b.Run(fmt.Sprintf("n=%d/svm1plus-qp", n), func(b *testing.B) {
				var cpu float64
				it := 0
				for i := 0; i < b.N; i++ {
					s, k, err := svm1plusByQP(ds, kz, cf, lf)
					if err != nil {
						b.Fatalf("SVM1+ by the dense IPM QP: %v", err)
					}
					cpu, it = cpu+s, k
				}
				b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
				b.ReportMetric(float64(it), "it")
			})
		}
	}
}

func boolMetric(v bool) float64 {
	if v {
		return 1
	}
	return 0
}

// qlambdaFloor times (process CPU seconds, best of two) what any exact
// evaluation of eq (5) must do for a privileged kernel whose Gram matrix is
// numerically full rank: form K̃ + 1 (footnote 1) and factorise
// μI + K̃ + 1, μ = λ/C (ncqp.CholeskyTick, QLambda's blocked Cholesky; n³/3
// flops of QLambda's n³). Any solver of dual (4) then needs Qλ's rows on
// top, so SVM2+ cannot cost less than this.
func qlambdaFloor(Z *mat.Dense, kz kernel.Kernel, mu float64) (gram, chol float64) {
	gram, chol = math.Inf(1), math.Inf(1)
	for r := 0; r < 2; r++ {
		c0, _ := cputime.Process()
		kt := gramPlusOne(kz, Z)
		c1, _ := cputime.Process()
		raw := kt.RawSymmetric()
		for i := 0; i < raw.N; i++ {
			raw.Data[i*raw.Stride+i] += mu
		}
		c2, _ := cputime.Process()
		if !ncqp.CholeskyTick(raw.Data, raw.N, nil) {
			panic("qlambdaFloor: not positive definite")
		}
		c3, _ := cputime.Process()
		gram, chol = math.Min(gram, c1-c0), math.Min(chol, c3-c2)
	}
	return gram, chol
}

// svm1plusByQP solves dual (2) with the dense interior-point QP solver (the
// paper timed SVM1+ with MOSEK, a general QP solver) and returns CPU seconds.
func svm1plusByQP(ds *data.Dataset, kz kernel.Kernel, C, lam float64) (float64, int, error) {
	y, _ := ds.BinaryY()
	n := len(y)
	c0, _ := cputime.Process()
	K := kernel.Kernel{Kind: kernel.Linear}.Gram(ds.X)
	KT := kz.Gram(ds.Z)
	P := mat.NewSymDense(2*n, nil)
	q := make([]float64, 2*n)
	for i := 0; i < n; i++ {
		var k1 float64
		for j := 0; j < n; j++ {
			kt := KT.At(i, j) / lam
			k1 += KT.At(i, j)
			if j >= i {
				P.SetSym(i, j, y[i]*y[j]*K.At(i, j)+kt)
				P.SetSym(n+i, n+j, kt)
			}
			P.SetSym(i, n+j, kt)
		}
		q[i] = -1 - C/lam*k1
		q[n+i] = -C / lam * k1
	}
	E := mat.NewDense(2, 2*n, nil)
	for i := 0; i < n; i++ {
		E.Set(0, i, 1)
		E.Set(0, n+i, 1)
		E.Set(1, i, y[i])
	}
	r, err := qp.Solve(context.Background(), &qp.Problem{P: P, Q: q, E: E, D: []float64{float64(n) * C, 0}, Lower: make([]float64, 2*n)}, qp.Options{})
	c1, _ := cputime.Process()
	if err != nil {
		return c1 - c0, 0, err
	}
	return c1 - c0, r.Iter, nil
}

// BenchmarkSVM2Plus and friends time one fit at n = 1000 (go test -bench).
func benchmarkFit(b *testing.B, id string, v model.Values) {
	ds := benchData(1000, 1000)
	sc, _ := data.FitScaler(ds, "standard")
	ds = sc.Apply(ds)
	for b.Loop() {
		if _, _, err := timeFit(context.Background(), id, ds, v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSVM1000 is the plain SVM at n = 1000.
func BenchmarkSVM1000(b *testing.B) { benchmarkFit(b, "svm", model.Values{"kernel": "linear"}) }

// BenchmarkSVM2Plus1000 is SVM2+ at n = 1000 (linear kernels).
func BenchmarkSVM2Plus1000(b *testing.B) {
	benchmarkFit(b, "svm2plus", model.Values{"kernel": "linear", "zkernel": "linear"})
}

// BenchmarkSVM1Plus1000 is SVM1+ at n = 1000 (linear kernels).
func BenchmarkSVM1Plus1000(b *testing.B) {
	benchmarkFit(b, "svm1plus", model.Values{"kernel": "linear", "zkernel": "linear"})
}

// benchS is the privileged dimension of benchData (-svmplus.s, default 30).
func benchS() int {
	if *flagS > 0 {
		return *flagS
	}
	return 30
}

// BenchmarkSVM2PlusRBFZ1000 is SVM2+ at n = 1000 with a linear decision
// kernel and an RBF privileged kernel (γ̃ = 1/30): dense Qλ, real
// correcting function (the make bench-svmplus-rbf case).
func BenchmarkSVM2PlusRBFZ1000(b *testing.B) {
	benchmarkFit(b, "svm2plus", model.Values{"kernel": "linear", "zkernel": "rbf", "zgamma": "0.0333333"})
}

// shippedSplit loads a shipped dataset, splits it (stratified, frac for
// training, seed) and standardises both parts on the training part, as the
// svm2plus experiment does.
func shippedSplit(tb testing.TB, name string, frac float64, seed int64) (train, rest *data.Dataset) {
	tb.Helper()
	ds, err := data.LoadShipped(filepath.Join("..", "..", "web", "datasets"), name)
	if err != nil {
		tb.Fatal(err)
	}
	if train, rest, err = data.StratifiedSplit(ds, frac, seed); err != nil {
		tb.Fatal(err)
	}
	sc, err := data.FitScaler(train, data.ScaleStandard)
	if err != nil {
		tb.Fatal(err)
	}
	if train, err = sc.Transform(train); err != nil {
		tb.Fatal(err)
	}
	if rest, err = sc.Transform(rest); err != nil {
		tb.Fatal(err)
	}
	return train, rest
}

// experimentTrain is the first repeat's training part of the svm2plus
// experiment on a shipped dataset (seed 1, a training fraction frac: 30 %
// in the experiment), the data of its final fits.
func experimentTrain(b *testing.B, name string, frac float64) *data.Dataset {
	train, _ := shippedSplit(b, name, frac, 1)
	return train
}

// BenchmarkExperimentFinal times the svm2plus experiment's final fits
// (one-vs-rest, linear kernels) at the parameters its validation chose
// (first repeat, RESULTS.json): SVM against SVM2+ and SVM1+ on the same rows.
func BenchmarkExperimentFinal(b *testing.B) {
	cases := []struct {
		data, id string
		v        model.Values
		frac     float64 // training fraction (0: the experiment's 30 %)
	}{
		{"digits-lowhigh", "svm", model.Values{"C": "0.1"}, 0},
		{"digits-lowhigh", "svm2plus", model.Values{"C": "1", "lambda": "0.001"}, 0},
		{"digits-lowhigh", "svm2plus", model.Values{"C": "0.01", "lambda": "10"}, 0},
		{"digits-lowhigh", "svm1plus", model.Values{"C": "1", "lambda": "100"}, 0},
		{"wdbc", "svm", model.Values{"C": "0.01"}, 0},
		{"wdbc", "svm2plus", model.Values{"C": "0.001", "lambda": "1"}, 0},
		{"wdbc", "svm2plus", model.Values{"C": "0.001", "lambda": "10"}, 0},
		{"wdbc", "svm1plus", model.Values{"C": "100", "lambda": "1000"}, 0},
	}
	// How the ratios grow with n on real data: digits with training parts
	// of 15, 30, 60 and 80 % (269, 539, 1 078 and 1 438 rows; 60 % is the
	// goal's n ≈ 1000), same parameters; then wdbc.
	digits, wdbc := cases[:4], cases[4:]
	cases = nil
	for _, frac := range []float64{0.15, 0.3, 0.6, 0.8} {
		for _, c := range digits {
			c.frac = frac
			cases = append(cases, c)
		}
	}
	cases = append(cases, wdbc...)
	for _, c := range cases {
		frac := c.frac
		if frac == 0 {
			frac = 0.3
		}
		train := experimentTrain(b, c.data, frac)
		v := c.v.Clone()
		v["kernel"] = "linear"
		if c.id != "svm" {
			v["zkernel"] = "linear"
		}
		v["multiclass"] = "ovr"
		b.Run(fmt.Sprintf("%s/n=%d/%s/%s", c.data, train.Rows(), c.id, paramsKey(c.v)), func(b *testing.B) {
			// One untimed fit first: under WebAssembly the first fits of a
			// run include the engine's compilation of the code they reach
			// (the n = 269 cases, which come first, took 15–60 % longer).
			if _, _, err := timeFit(context.Background(), c.id, train, v); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, _, err := timeFit(context.Background(), c.id, train, v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// paramsKey names a benchmark case by its parameters (sorted keys).
func paramsKey(v model.Values) string {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + v[k]
	}
	return strings.Join(parts, ",")
}

// BenchmarkLowRankQLambda: the linear privileged kernel's factor V (Qλ =
// VVᵀ) for Z̃ of the shipped data's sizes: wdbc's training part (171×21)
// and digits' (269×65, 1438×65).
func BenchmarkLowRankQLambda(b *testing.B) {
	for _, sz := range [][2]int{{171, 21}, {269, 65}, {1438, 65}} {
		rng := rand.New(rand.NewPCG(uint64(sz[0]), uint64(sz[1])))
		zt := mat.NewDense(sz[0], sz[1], nil)
		for i := 0; i < sz[0]; i++ {
			for j := 0; j < sz[1]; j++ {
				zt.Set(i, j, rng.NormFloat64())
			}
			zt.Set(i, sz[1]-1, 1)
		}
		b.Run(fmt.Sprintf("n=%d/r=%d", sz[0], sz[1]), func(b *testing.B) {
			for b.Loop() {
				if _, err := LowRankQLambda(zt, 1, 1e-3); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
