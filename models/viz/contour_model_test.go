package viz

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/model"
)

// evalAt returns a model output at the given points, straight from the
// model (Predict or PlaneValues), never from a grid.
type evalAt func(pts [][2]float64) []float64

func rowsOf(pts [][2]float64) *mat.Dense {
	m := mat.NewDense(len(pts), 2, nil)
	for i, p := range pts {
		m.Set(i, 0, p[0])
		m.Set(i, 1, p[1])
	}
	return m
}

// hessianNorm returns the largest spectral norm of f's Hessian at the
// points, by central second differences of step s (each a few ulp-free
// Predict calls).
func hessianNorm(f evalAt, pts [][2]float64, s float64) float64 {
	offs := [][2]float64{{0, 0}, {s, 0}, {-s, 0}, {0, s}, {0, -s}, {s, s}, {s, -s}, {-s, s}, {-s, -s}}
	all := make([][2]float64, 0, len(pts)*len(offs))
	for _, p := range pts {
		for _, o := range offs {
			all = append(all, [2]float64{p[0] + o[0], p[1] + o[1]})
		}
	}
	v := f(all)
	worst := 0.0
	for k := range pts {
		q := v[k*len(offs) : (k+1)*len(offs)]
		fxx := (q[1] - 2*q[0] + q[2]) / (s * s)
		fyy := (q[3] - 2*q[0] + q[4]) / (s * s)
		fxy := (q[5] - q[6] - q[7] + q[8]) / (4 * s * s)
		// Spectral norm of [[fxx, fxy], [fxy, fyy]].
		m, d := (fxx+fyy)/2, math.Hypot((fxx-fyy)/2, fxy)
		worst = math.Max(worst, math.Max(math.Abs(m+d), math.Abs(m-d)))
	}
	return worst
}

// The traced boundary of real models against the models themselves: fit an
// RBF SVM on two moons, a GPC on two moons and a twin SVM on two moons,
// evaluate each on a 100×100 grid (the fast path), trace the boundary level
// (decision 0, probability 0.5, the twin decision 0 and its positive plane's
// 0), and evaluate the model by Predict (PlaneValues for the plane) at
// points spread along every path. GPC's p = 0.5 line is also traced as the
// latent mean's 0 line (the same set: Φ is monotone and p − ½ has the
// mean's sign), which the smoother mean gives far more accurately when p is
// steep (see BoundaryLayer).
//
// The bound, from the grid spacing and the function's curvature: a traced
// vertex is the zero of the linear interpolant along a cell edge, off the
// function by ≤ h²/8·|f”|; a point on a segment between two vertices of a
// cell (length ≤ the diagonal d) is off their linear interpolant by ≤
// d²/8·‖∇²f‖. So |f − level| ≤ (max(dx,dy)² + dx² + dy²)/8·M₂ with M₂ the
// Hessian's spectral norm near the line — taken as twice the largest one
// measured by central differences at the traced points (the factor 2 for
// its variation within a cell, 1 % of the box across). Relative to the
// grid's value range the bound is ≈ 1e-4…1e-3 here, against the ≈ 1e-2 of a
// pixel staircase (|∇f|·h).
func TestContoursOfModels(t *testing.T) {
	rbf := map[string]string{"kernel": "rbf"}
	cases := []struct {
		name, id, gen string
		n             int
		set           map[string]string
		layer         string
	}{
		{"svm decision", "svm", "moons", 200, nil, LayerDecision},
		{"gpc probability", "gpc", "moons", 140, nil, LayerProbability},
		{"gpc boundary from the mean", "gpc", "moons", 140, nil, LayerMean},
		{"twsvm rbf decision", "twsvm", "moons", 200, rbf, LayerDecision},
		{"twsvm rbf positive plane", "twsvm", "moons", 200, rbf, "pos"},
		{"twsvm linear decision", "twsvm", "moons", 200, nil, LayerDecision},
	}
	type fitted struct {
		f  model.Fitted
		ds *data.Dataset
	}
	fits := map[string]fitted{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			key := c.id + kernelName(c.set)
			if _, ok := fits[key]; !ok {
				f, ds := fitDefault(t, c.id, c.gen, c.n, c.set)
				fits[key] = fitted{f, ds}
			}
			f, ds := fits[key].f, fits[key].ds
			g, err := BoundsOf(100, 100, 0.08, ds.X)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Evaluate(f, nil, g, ds.Classes, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !s.Fast {
				t.Fatal("not the fast path")
			}
			l := s.Layer(c.layer)
			if l == nil {
				t.Fatalf("no layer %q", c.layer)
			}
			level := Levels(l.Kind)[0].Value
			paths, err := Contours(g, l.Values, level)
			if err != nil {
				t.Fatal(err)
			}
			if len(paths) == 0 {
				t.Fatal("no boundary traced")
			}
			model := func(pts [][2]float64) []float64 {
				ds := &data.Dataset{X: rowsOf(pts), Classes: ds.Classes}
				if c.layer == "pos" {
					return planeValues(t, f, ds)["pos"]
				}
				p, err := f.Predict(ds)
				if err != nil {
					t.Fatal(err)
				}
				if c.layer == LayerProbability {
					out := make([]float64, len(p.Prob))
					for i, q := range p.Prob {
						out[i] = q[1]
					}
					return out
				}
				return p.Decision
			}
			pts := along(paths)
			vals := model(pts)
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, v := range l.Values {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			dx := (g.XMax - g.XMin) / float64(g.W)
			m2 := 2 * hessianNorm(model, pts, dx/2)
			bound := interpBound(g, m2)
			worst := 0.0
			for _, v := range vals {
				worst = math.Max(worst, math.Abs(v-level))
			}
			// How far the line is from the model's boundary, in grid cells:
			// |f − level|/‖∇f‖ (gradient by central differences).
			const e = 1e-6
			shifted := make([][2]float64, 0, 4*len(pts))
			for _, p := range pts {
				shifted = append(shifted, [2]float64{p[0] + e, p[1]}, [2]float64{p[0] - e, p[1]}, [2]float64{p[0], p[1] + e}, [2]float64{p[0], p[1] - e})
			}
			sv := model(shifted)
			cells := 0.0
			for k, v := range vals {
				gx, gy := (sv[4*k]-sv[4*k+1])/(2*e), (sv[4*k+2]-sv[4*k+3])/(2*e)
				if gn := math.Hypot(gx, gy); gn > 0 {
					cells = math.Max(cells, math.Abs(v-level)/gn/dx)
				}
			}
			t.Logf("%d paths, %d points: worst |f − %g| = %.3g, bound %.3g (M₂ %.3g); relative to the range %.3g: %.2g (bound %.2g); at most %.2g cells from the model's boundary",
				len(paths), len(pts), level, worst, bound, m2, hi-lo, worst/(hi-lo), bound/(hi-lo), cells)
			if worst > bound {
				t.Errorf("traced boundary off the model by %.3g > bound %.3g", worst, bound)
			}
		})
	}
}
