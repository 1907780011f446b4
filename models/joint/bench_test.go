package joint

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/kernel"
	"lupilab/models/model"
	"lupilab/models/svm"
)

// Benchmark data: n rows of d standard-normal features and T tags, each tag a
// thresholded random projection plus noise, with co-occurrence (tag j+1 often
// follows tag j), about 2-3 tags per row. Sizes from BENCH_N, BENCH_D,
// BENCH_T (defaults 2000, 16, 10). With BENCH_SHIPPED=DIR the shipped
// digits-tags set in DIR (web/datasets) is used instead, pixels scaled to
// [0, 1].
func benchData(b testing.TB) (X, tags *mat.Dense) {
	if dir := os.Getenv("BENCH_SHIPPED"); dir != "" {
		ds, err := data.LoadShipped(dir, "digits-tags")
		if err != nil {
			b.Fatal(err)
		}
		X = mat.DenseCopyOf(ds.X)
		X.Scale(1.0/16, X)
		return X, ds.Tags
	}
	env := func(name string, def int) int {
		if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
			return v
		}
		return def
	}
	n, d, T := env("BENCH_N", 2000), env("BENCH_D", 16), env("BENCH_T", 10)
	rng := rand.New(rand.NewPCG(42, 7))
	W := make([][]float64, T)
	for j := range W {
		W[j] = make([]float64, d)
		for k := range W[j] {
			W[j][k] = rng.NormFloat64()
		}
	}
	X = mat.NewDense(n, d, nil)
	tags = mat.NewDense(n, T, nil)
	for i := 0; i < n; i++ {
		x := X.RawRowView(i)
		for k := range x {
			x[k] = rng.NormFloat64()
		}
		for j := 0; j < T; j++ {
			var s float64
			for k, w := range W[j] {
				s += w * x[k]
			}
			s = s/math.Sqrt(float64(d)) + 0.4*rng.NormFloat64()
			if s > 1 || (j > 0 && tags.At(i, j-1) == 1 && rng.Float64() < 0.4) {
				tags.Set(i, j, 1)
			}
		}
	}
	return X, tags
}

const benchC = 1

func benchKernel(d int) kernel.Kernel { return kernel.Kernel{Kind: kernel.RBF, Gamma: 1 / float64(d)} }

func benchJoint(b *testing.B, kind string) {
	X, tags := benchData(b)
	_, d := X.Dims()
	p := Params{Kernel: benchKernel(d), C: benchC, Output: OutputParams{Kind: kind, Sigma2: 2, Reg: 0.1, Degree: 3, Coef0: 1}}
	b.ResetTimer()
	var m *Model
	for i := 0; i < b.N; i++ {
		var err error
		if m, err = Train(context.Background(), X, tags, nil, p, model.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(m.Report().NSupport), "SVs")
	b.ReportMetric(m.Report().Extras["gamma_table_bytes"], "γ-bytes")
	b.ReportMetric(m.Report().Extras["label_sets"], "label-sets")
}

// BenchmarkJointTrainGaussian trains the joint SVM with the Gaussian output kernel.
func BenchmarkJointTrainGaussian(b *testing.B) { benchJoint(b, OutGaussian) }

// BenchmarkJointTrainPoly trains the joint SVM with the cubic output kernel.
func BenchmarkJointTrainPoly(b *testing.B) { benchJoint(b, OutPoly) }

// BenchmarkSingleTagSVM trains one C-SVM (with bias) on the first tag: the
// cost the joint SVM should stay within 2× of.
func BenchmarkSingleTagSVM(b *testing.B) {
	X, tags := benchData(b)
	_, d := X.Dims()
	Y := signs(tags)
	y := make([]float64, len(Y))
	for i := range y {
		y[i] = Y[i][0]
	}
	b.ResetTimer()
	var m *svm.Model
	for i := 0; i < b.N; i++ {
		var err error
		if m, err = svm.Train(context.Background(), X, y, svm.Params{Kernel: benchKernel(d), C: benchC, Shrinking: true}, model.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(m.Report().NSupport), "SVs")
}

// BenchmarkIndepTrain trains T independent SVMs.
func BenchmarkIndepTrain(b *testing.B) {
	X, tags := benchData(b)
	_, d := X.Dims()
	b.ResetTimer()
	var m *Indep
	for i := 0; i < b.N; i++ {
		var err error
		if m, err = TrainIndep(context.Background(), X, tags, nil, IndepParams{Kernel: benchKernel(d), C: benchC}, model.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(m.Report().NSupport), "SVs")
}

// BenchmarkJointPredict predicts the training inputs (n rows) by eq (13).
func BenchmarkJointPredict(b *testing.B) {
	X, tags := benchData(b)
	_, d := X.Dims()
	m, err := Train(context.Background(), X, tags, nil, Params{Kernel: benchKernel(d), C: benchC, Output: OutputParams{Kind: OutGaussian, Sigma2: 2, Reg: 0.1}}, model.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ds := &data.Dataset{X: X}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Predict(ds); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIndepPredict predicts the training inputs with T SVMs.
func BenchmarkIndepPredict(b *testing.B) {
	X, tags := benchData(b)
	_, d := X.Dims()
	m, err := TrainIndep(context.Background(), X, tags, nil, IndepParams{Kernel: benchKernel(d), C: benchC}, model.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ds := &data.Dataset{X: X}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Predict(ds); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDumpBenchData writes the benchmark data as LIBSVM files (one per tag)
// into $BENCH_DUMP so that scripts/bench-joint.sh can time LIBSVM's
// svm-train on the same problems. Skipped unless BENCH_DUMP is set.
func TestDumpBenchData(t *testing.T) {
	dir := os.Getenv("BENCH_DUMP")
	if dir == "" {
		t.Skip("BENCH_DUMP not set")
	}
	X, tags := benchData(t)
	n, d := X.Dims()
	_, T := tags.Dims()
	for j := 0; j < T; j++ {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("tag%d.libsvm", j)))
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(f)
		for i := 0; i < n; i++ {
			y := -1
			if tags.At(i, j) == 1 {
				y = 1
			}
			fmt.Fprintf(w, "%d", y)
			for k := 0; k < d; k++ {
				fmt.Fprintf(w, " %d:%.17g", k+1, X.At(i, k))
			}
			fmt.Fprintln(w)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if err := os.WriteFile(filepath.Join(dir, "params"), fmt.Appendf(nil, "T=%d\nGAMMA=%.17g\nC=%d\n", T, 1/float64(d), benchC), 0o644); err != nil {
		t.Fatal(err)
	}
}
