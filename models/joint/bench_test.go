package joint

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/kernel"
	"lupilab/models/model"
	"lupilab/models/svm"
)

// Sizes of the benchmark data, as test flags (go test -bench . ./models/joint
// -args -joint.n=1000): scripts/bench-joint.sh passes them.
var (
	benchN       = flag.Int("joint.n", 2000, "benchmark data: rows")
	benchD       = flag.Int("joint.d", 16, "benchmark data: features")
	benchT       = flag.Int("joint.t", 10, "benchmark data: tags")
	benchShipped = flag.String("joint.shipped", "", "benchmark on the shipped digits-tags set in this directory (web/datasets) instead")
)

// Benchmark data: n rows of d standard-normal features and T tags, each tag a
// thresholded random projection plus noise, with co-occurrence (tag j+1 often
// follows tag j), about 2-3 tags per row. Sizes from -joint.n, -joint.d,
// -joint.t (defaults 2000, 16, 10). With -joint.shipped=DIR the shipped
// digits-tags set in DIR (web/datasets) is used instead, pixels scaled to
// [0, 1].
func benchData(b testing.TB) (X, tags *mat.Dense) {
	if *benchShipped != "" {
		ds, err := data.LoadShipped(*benchShipped, "digits-tags")
		if err != nil {
			b.Fatal(err)
		}
		X = mat.DenseCopyOf(ds.X)
		X.Scale(1.0/16, X)
		return X, ds.Tags
	}
	n, d, T := *benchN, *benchD, *benchT
	if n < 2 || d < 1 || T < 1 {
		b.Fatalf("benchmark data of %d rows, %d features, %d tags", n, d, T)
	}
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

// BenchmarkLIBSVMSingleTag times LIBSVM's svm-train (Debian libsvm-tools)
// on the first tag of the benchmark data, with BenchmarkSingleTagSVM's
// settings (RBF γ = 1/d, C = 1, eps = 1e-3, shrinking): the outside
// reference, timed as a whole process (start, reading the file, training,
// writing the model).
func BenchmarkLIBSVMSingleTag(b *testing.B) { benchLIBSVM(b, 1) }

// BenchmarkLIBSVMIndep times svm-train once per tag: LIBSVM's counterpart of
// BenchmarkIndepTrain.
func BenchmarkLIBSVMIndep(b *testing.B) { benchLIBSVM(b, 0) }

// benchLIBSVM writes the benchmark data as LIBSVM files, one per tag, and
// times svm-train on the first tags of them (all when tags is 0).
func benchLIBSVM(b *testing.B, tags int) {
	trainer, err := exec.LookPath("svm-train")
	if err != nil {
		b.Fatalf("svm-train not found (Debian libsvm-tools; make deps installs it): %v", err)
	}
	X, Tags := benchData(b)
	_, d := X.Dims()
	files := writeLIBSVMTags(b, b.TempDir(), X, Tags)
	if tags > 0 {
		files = files[:tags]
	}
	gamma := strconv.FormatFloat(benchKernel(d).Gamma, 'g', -1, 64)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, f := range files {
			cmd := exec.Command(trainer, "-q", "-s", "0", "-t", "2", "-g", gamma, "-c", strconv.Itoa(benchC), "-e", "0.001", "-h", "1", f, f+".model")
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("svm-train %s: %v\n%s", f, err, out)
			}
		}
	}
	b.ReportMetric(float64(len(files)), "tags")
}

// writeLIBSVMTags writes one LIBSVM file per tag (labels ±1, every feature)
// into dir and returns their paths.
func writeLIBSVMTags(b *testing.B, dir string, X, tags *mat.Dense) []string {
	n, d := X.Dims()
	_, T := tags.Dims()
	var paths []string
	for j := 0; j < T; j++ {
		path := filepath.Join(dir, fmt.Sprintf("tag%d.libsvm", j))
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
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
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, path)
	}
	return paths
}
