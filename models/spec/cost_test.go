package spec

import (
	"math"
	"strings"
	"testing"
)

// TestEveryModelHasACost: the cost model covers the whole catalogue, with
// finite, non-negative coefficients, and a growing estimate.
func TestEveryModelHasACost(t *testing.T) {
	for _, s := range All() {
		c := CostOf(s.ID)
		if c == nil {
			t.Errorf("%s has no calibrated cost (run go run ./scripts/cost calibrate)", s.ID)
			continue
		}
		for _, x := range []float64{c.T0, c.T1, c.T2, c.T3, c.P, c.B0, c.B1, c.B2, c.Units, c.ColdUnits, c.Evaluations} {
			if x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
				t.Errorf("%s: coefficient %v", s.ID, x)
			}
		}
		sh := Shape{Rows: 200, Dim: 4, ZDim: 3, Classes: 2, Tags: 3}
		small, big := s.Estimate(sh, nil), s.Estimate(Shape{Rows: 2000, Dim: 4, ZDim: 3, Classes: 2, Tags: 3}, nil)
		if !small.Known || !(small.Seconds > 0) || !(small.Bytes > 0) || big.Seconds <= small.Seconds || big.Bytes < small.Bytes {
			t.Errorf("%s: estimates %+v at n = 200 and %+v at 2000", s.ID, small, big)
		}
	}
}

// TestEstimateMechanics: the decomposition into sub-problems and the
// parameters that change a fit's cost, on a hand-made cost.
func TestEstimateMechanics(t *testing.T) {
	costTable["test-binary"] = &Cost{T0: 1, T2: 1e-6, B0: 100, B2: 8, CacheBytes: 1 << 20}
	costTable["test-gp"] = &Cost{T0: 0.5, Unit: "ep_sweeps_total", Units: 200, Evaluations: 40, ColdUnits: 12, B2: 16}
	costTable["test-ccp"] = &Cost{T0: 2, Unit: "ccp_steps", Units: 7}
	costTable["test-twin"] = &Cost{T0: 10, B0: 1, Linear: &Cost{T0: 1, B0: 1}}
	defer func() {
		for _, id := range []string{"test-binary", "test-gp", "test-ccp", "test-twin"} {
			delete(costTable, id)
		}
	}()
	bin := &Spec{ID: "test-binary", Task: Binary, Params: []Param{StrategyParam(),
		{Name: "probability", Kind: Bool, Default: "false"}, {Name: "cache", Kind: Float, Default: "100"}}}
	sh := Shape{Rows: 1000, Dim: 10, Classes: 2}
	e := bin.Estimate(sh, nil)
	if e.Tasks != 1 || e.TaskRows != 1000 || math.Abs(e.Seconds-(1+1e-6*1e6*10)) > 1e-9 {
		t.Errorf("binary: %+v", e)
	}
	// m² bytes capped by the cache: 8·10⁶ B < 100 MiB here, capped at 1 MiB below
	if e.Bytes != 100+8e6 {
		t.Errorf("binary bytes %v", e.Bytes)
	}
	if e := bin.Estimate(sh, Values{"cache": "1"}); e.Bytes != 100+(1<<20) {
		t.Errorf("cache-bounded bytes %v", e.Bytes)
	}
	sh.Classes = 5
	if e := bin.Estimate(sh, nil); e.Tasks != 5 || e.TaskRows != 1000 || math.Abs(e.Seconds-5*11) > 1e-9 {
		t.Errorf("one-vs-rest: %+v", e)
	}
	if e := bin.Estimate(sh, Values{"multiclass": "ovo"}); e.Tasks != 10 || e.TaskRows != 400 {
		t.Errorf("one-vs-one: %+v", e)
	}
	sh.Classes = 2
	p := bin.Estimate(sh, Values{"probability": "true"})
	want := 11 + 5*(1+1e-6*800*800*10)
	if math.Abs(p.Seconds-want) > 1e-9 {
		t.Errorf("probability=true: %v s, want %v (five folds on 4/5 of the rows)", p.Seconds, want)
	}

	gp := &Spec{ID: "test-gp", Task: Binary, Params: []Param{
		{Name: "optimize", Kind: Bool, Default: "true"}, {Name: "restarts", Kind: Int, Default: "1"},
		{Name: "max_sweeps", Kind: Int, Default: "100"}}}
	def := gp.Estimate(sh, nil)
	if math.Abs(def.Seconds-0.5*200) > 1e-9 {
		t.Errorf("GP defaults: %v s, want 100 (200 sweeps of 0.5 s)", def.Seconds)
	}
	if e := gp.Estimate(sh, Values{"optimize": "false"}); math.Abs(e.Seconds-0.5*12) > 1e-9 {
		t.Errorf("optimize=false: %v s, want 6 (one evidence evaluation)", e.Seconds)
	}
	if e := gp.Estimate(sh, Values{"restarts": "3"}); math.Abs(e.Seconds-2*def.Seconds) > 1e-9 {
		t.Errorf("restarts=3: %v s, want twice the default's (four searches for two)", e.Seconds)
	}
	if e := gp.Estimate(sh, Values{"max_sweeps": "2"}); math.Abs(e.Seconds-0.5*40*2) > 1e-9 {
		t.Errorf("max_sweeps=2: %v s, want 40 evaluations × 2 sweeps × 0.5 s", e.Seconds)
	}
	ccp := &Spec{ID: "test-ccp", Task: Binary, Params: []Param{{Name: "ccp_iter", Kind: Int, Default: "30"}}}
	if e := ccp.Estimate(sh, nil); e.Seconds != 14 {
		t.Errorf("ccp default: %v", e.Seconds)
	}
	if e := ccp.Estimate(sh, Values{"ccp_iter": "2"}); e.Seconds != 4 {
		t.Errorf("ccp_iter=2: %v", e.Seconds)
	}
	twin := &Spec{ID: "test-twin", Task: Binary, Params: KernelParams("", "Kernel", KernelLinear)}
	if e := twin.Estimate(sh, nil); e.Seconds != 1 {
		t.Errorf("twin with its default linear kernel: %v", e.Seconds)
	}
	if e := twin.Estimate(sh, Values{"kernel": "rbf"}); e.Seconds != 10 {
		t.Errorf("twin with an RBF kernel: %v", e.Seconds)
	}
	ml := &Spec{ID: "indepsvm", Task: MultiLabel}
	if tasks, rows := ml.Tasks(Shape{Rows: 50, Tags: 7}, nil); tasks != 7 || rows != 50 {
		t.Errorf("independent SVMs: %d tasks of %d rows", tasks, rows)
	}
	if e := (&Spec{ID: "none"}).Estimate(sh, nil); e.Known || e.String() != "unknown cost" {
		t.Errorf("a model without a cost: %+v", e)
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		s    float64
		want string
	}{{0.31, "0.31 s"}, {45, "45 s"}, {720, "12 min"}, {3 * 3600, "3.0 h"}, {5 * 86400, "5 days"}} {
		if got := FormatSeconds(c.s); got != c.want {
			t.Errorf("FormatSeconds(%v) = %q, want %q", c.s, got, c.want)
		}
	}
	if got := FormatBytes(1.5 * (1 << 30)); got != "1.5 GB" {
		t.Errorf("FormatBytes = %q", got)
	}
	if got := (Estimate{Seconds: 3.2, Bytes: 120 << 20, Known: true}).String(); !strings.Contains(got, "3.2 s") || !strings.Contains(got, "120 MB") {
		t.Errorf("Estimate.String = %q", got)
	}
}

// TestPenaltyGrowsTheEstimate: a penalty far above its default makes an
// SMO fit an upper-bound estimate many times the default's (measured: C =
// 1000 takes 30–40 times C = 1 on overlapping moons; before the factor, an
// SVM with C = 1000 on 2 100 rows was estimated at a tenth of a second and
// took 6 s), while a penalty at or below its default leaves it alone; and
// every factor names penalty parameters its model has.
func TestPenaltyGrowsTheEstimate(t *testing.T) {
	for id, p := range penaltyTable {
		s, err := Lookup(id)
		if err != nil {
			t.Errorf("penalties.go: %v", err)
			continue
		}
		for _, name := range p.Params {
			if s.Param(name) == nil {
				t.Errorf("penalties.go: %s has no parameter %s", id, name)
			}
		}
		if !(p.A > 0) || !(p.Q > 0) {
			t.Errorf("penalties.go: %s: %+v", id, p)
		}
	}
	s, err := Lookup("svm")
	if err != nil {
		t.Fatal(err)
	}
	sh := Shape{Rows: 2100, Dim: 2, Classes: 2}
	def := s.Estimate(sh, nil)
	low := s.Estimate(sh, Values{"C": "0.01"})
	high := s.Estimate(sh, Values{"C": "1000"})
	if def.UpTo() || low.UpTo() || low.Seconds != def.Seconds || def.Penalty != 1 {
		t.Errorf("C at or below its default: %+v and %+v, want the formula alone", def, low)
	}
	if !high.UpTo() || high.Seconds < 10*def.Seconds || !strings.HasPrefix(high.String(), "up to ") {
		t.Errorf("C = 1000: %+v (%s), want an upper bound over 10× the default's %v s", high, high, def.Seconds)
	}
	// a model with two penalties follows the larger
	for id, p := range penaltyTable {
		if len(p.Params) < 2 {
			continue
		}
		m, _ := Lookup(id)
		one := m.Estimate(sh, Values{p.Params[0]: "1000"})
		both := m.Estimate(sh, Values{p.Params[0]: "1000", p.Params[1]: "1000"})
		if one.Seconds != both.Seconds || !one.UpTo() {
			t.Errorf("%s: %s = 1000 gives %v s, with %s = 1000 too %v s", id, p.Params[0], one.Seconds, p.Params[1], both.Seconds)
		}
	}
}

// TestPenaltyFollowsTheOverlap: once the model's training error on the data
// is known, a large penalty's factor is scaled by (e/E)^B: the slow case's
// bound at E and above, the formula alone with no training error, growing
// with e in between — an estimate, no longer an upper bound. Unknown
// (negative) or out-of-range errors leave the upper bound.
func TestPenaltyFollowsTheOverlap(t *testing.T) {
	for id, p := range penaltyTable {
		if !(p.E > 0 && p.E < 1) || !(p.B >= 0.5 && p.B <= 4) {
			t.Errorf("penalties.go: %s: E = %v, B = %v", id, p.E, p.B)
		}
	}
	s, err := Lookup("svm")
	if err != nil {
		t.Fatal(err)
	}
	p := penaltyTable["svm"]
	sh := Shape{Rows: 2100, Dim: 2, Classes: 2}
	def := s.Estimate(sh, nil)
	high := Values{"C": "1000"}
	bound := s.Estimate(sh, high)
	for _, e := range []float64{-1, 1.5, math.NaN()} {
		if got := s.EstimateAfter(sh, high, e); got.Seconds != bound.Seconds || !got.UpTo() || got.Scaled() {
			t.Errorf("training error %v: %+v, want the upper bound %+v", e, got, bound)
		}
	}
	if got := s.EstimateAfter(sh, high, p.E); math.Abs(got.Seconds-bound.Seconds) > 1e-12*bound.Seconds || got.UpTo() || !got.Scaled() ||
		!strings.HasPrefix(got.String(), "about ") {
		t.Errorf("at the slow case's error: %+v (%s), want the bound's time as an estimate", got, got)
	}
	if got := s.EstimateAfter(sh, high, 0); got.Seconds != def.Seconds {
		t.Errorf("no training error: %v s, want the defaults' %v s", got.Seconds, def.Seconds)
	}
	prev := def.Seconds
	for _, f := range []float64{0.1, 0.3, 0.6, 0.9} {
		e := f * p.E
		got := s.EstimateAfter(sh, high, e)
		want := def.Seconds * (1 + (bound.Penalty-1)*math.Pow(f, p.B))
		if math.Abs(got.Seconds-want) > 1e-9*want || got.Seconds <= prev {
			t.Errorf("training error %v: %v s, want %v s, above %v s", e, got.Seconds, want, prev)
		}
		prev = got.Seconds
	}
	// a penalty at its default stays the formula, whatever the error
	if got := s.EstimateAfter(sh, nil, p.E); got.Seconds != def.Seconds || got.Scaled() || got.UpTo() {
		t.Errorf("defaults: %+v", got)
	}
}
