package svm

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/kernel"
	"lupilab/models/model"
)

type fixture struct {
	Name       string    `json:"name"`
	Data       string    `json:"data"`
	Kernel     string    `json:"kernel"`
	C          float64   `json:"C"`
	Gamma      float64   `json:"gamma"`
	WPos       float64   `json:"wpos"`
	WNeg       float64   `json:"wneg"`
	Obj        float64   `json:"obj"`
	ObjPrinted float64   `json:"obj_printed"`
	Rho        float64   `json:"rho"`
	SV         []int     `json:"sv"`
	Alpha      []float64 `json:"alpha"`
	Decision   []float64 `json:"decision"`
	Pred       []float64 `json:"pred"`
}

// readLIBSVM is a minimal dense reader for the fixture files (kept here so
// the reference test does not depend on the data package's parser).
func readLIBSVM(t *testing.T, path string) (*mat.Dense, []float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []map[int]float64
	var y []float64
	d := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		parts := strings.Fields(sc.Text())
		if len(parts) == 0 {
			continue
		}
		lab, err := strconv.ParseFloat(parts[0], 64)
		if err != nil {
			t.Fatal(err)
		}
		r := map[int]float64{}
		for _, p := range parts[1:] {
			k, v, _ := strings.Cut(p, ":")
			i, err1 := strconv.Atoi(k)
			x, err2 := strconv.ParseFloat(v, 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: bad entry %q", path, p)
			}
			r[i-1] = x
			d = max(d, i)
		}
		rows = append(rows, r)
		y = append(y, lab)
	}
	X := mat.NewDense(len(rows), d, nil)
	for i, r := range rows {
		for j, v := range r {
			X.Set(i, j, v)
		}
	}
	return X, y
}

func svSet(alpha []float64, idx []int) []int {
	m := 0.0
	for _, a := range alpha {
		m = math.Max(m, a)
	}
	var out []int
	for t, a := range alpha {
		if a > 1e-8*m {
			out = append(out, idx[t])
		}
	}
	sort.Ints(out)
	return out
}

func TestAgainstLIBSVM(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "fixtures.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Cases []fixture `json:"cases"`
	}
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	if len(fx.Cases) < 20 {
		t.Fatalf("only %d fixture cases", len(fx.Cases))
	}
	data := map[string]struct {
		X *mat.Dense
		y []float64
	}{}
	// Single precision reproduces LIBSVM's arithmetic (it caches Q in
	// float): every check at full tolerance. Double precision solves the
	// exact problem: LIBSVM's float Q perturbs its decision values by up to
	// ~1e-4 on these sets, so there we check objective, support set and
	// predictions only (the KKT tests cover the double-precision solution).
	for _, f32 := range []bool{true, false} {
		for _, c := range fx.Cases {
			c := c
			name := c.Name + "/double"
			if f32 {
				name = c.Name + "/single"
			}
			t.Run(name, func(t *testing.T) {
				dd, ok := data[c.Data]
				if !ok {
					dd.X, dd.y = readLIBSVM(t, filepath.Join("testdata", c.Data))
					data[c.Data] = dd
				}
				k := kernel.Kernel{Kind: kernel.Kind(c.Kernel), Gamma: c.Gamma}
				m, err := Train(context.Background(), dd.X, dd.y, Params{Kernel: k, C: c.C, WeightPos: c.WPos, WeightNeg: c.WNeg, Eps: 1e-6, Shrinking: true, Float32: f32}, model.Options{})
				if err != nil {
					t.Fatal(err)
				}
				r := m.Report()
				if !r.Converged {
					t.Fatal("not converged")
				}
				if rel := math.Abs(r.Objective-c.Obj) / math.Abs(c.Obj); rel > 1e-6 {
					t.Errorf("objective %.12g, LIBSVM %.12g (relative difference %.3g)", r.Objective, c.Obj, rel)
				}
				if math.Abs(r.Objective-c.ObjPrinted) > 1e-6*math.Abs(c.ObjPrinted)+5e-7 {
					t.Errorf("objective %.12g, svm-train printed %.6f", r.Objective, c.ObjPrinted)
				}
				alpha := r.Diagnostics["alpha"]
				all := make([]int, len(alpha))
				for i := range all {
					all[i] = i
				}
				ours, theirs := svSet(alpha, all), svSet(c.Alpha, c.SV)
				if len(ours) != len(theirs) {
					t.Errorf("%d support vectors, LIBSVM %d", len(ours), len(theirs))
				} else {
					for i := range ours {
						if ours[i] != theirs[i] {
							t.Errorf("support vector sets differ at %d: %d vs %d", i, ours[i], theirs[i])
							break
						}
					}
				}
				dec := m.DecisionX(dd.X)
				worst := 0.0
				for i, f := range dec {
					worst = math.Max(worst, math.Abs(f-c.Decision[i]))
					lab := -1.0
					if f > 0 {
						lab = 1
					}
					if lab != c.Pred[i] {
						t.Errorf("row %d: prediction %v, svm-predict %v (decision %g vs %g)", i, lab, c.Pred[i], f, c.Decision[i])
					}
				}
				if f32 && worst > 1e-5 {
					t.Errorf("decision values differ by up to %.3g", worst)
				}
				if f32 && math.Abs(*r.Rho-c.Rho) > 1e-5 {
					t.Errorf("rho %.10g, LIBSVM %.10g", *r.Rho, c.Rho)
				}
			})
		}
	}
}
