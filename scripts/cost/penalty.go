package main

import (
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"lupilab/models/model"
	"lupilab/models/spec"
)

// penaltyMain measures how each model's time grows with its penalty
// parameters (C; C_A and C_B; …) and fits spec.Penalty's factor
// 1 + A·(r^Q − 1) to the ratios: every model that has them is fitted on
// its generator at -n rows (halved until the cost model expects a fit at
// the defaults to take at most -budget seconds), once at its defaults on
// the generator's default noise — the data the cost formula is calibrated
// on, so the formula's typical case — and then with heavily overlapping
// classes (the slow case: -noise) and all its penalty parameters at r
// times their defaults for each r of -ratios. The slow case's time over
// the typical one is the factor to fit: it bounds what a large penalty can
// cost, overlap included. A model whose time grows less than -min-growth
// times up to the largest r gets no factor.
//
//	go run ./scripts/cost penalty [-n 3200] [-budget 0.3] [-noise 0.45] [-ratios 10,100,1000] [-models a,b] [-w models/spec/penalties.go]
func penaltyMain(args []string) error {
	fs := flag.NewFlagSet("penalty", flag.ContinueOnError)
	maxN := fs.Int("n", 3200, "rows of the generated data (at most)")
	budget := fs.Float64("budget", 0.3, "halve n until a fit at the defaults is expected to take at most this many seconds")
	noise := fs.Float64("noise", 0.45, "the generators' noise (large: overlapping classes)")
	ratiosFlag := fs.String("ratios", "10,100,1000", "penalty values as multiples of their defaults")
	minGrowth := fs.Float64("min-growth", 2, "smallest growth at the largest ratio that earns a factor")
	only := fs.String("models", "", "comma-separated model ids (default: all with penalty parameters)")
	check := fs.Float64("check", 0.3, "a noise between the default and -noise on which to check the scaled factor (0: no check)")
	write := fs.String("w", "", "write the factors as Go source to this file (models/spec/penalties.go)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var ratios []float64
	for _, f := range strings.Split(*ratiosFlag, ",") {
		r, err := strconv.ParseFloat(f, 64)
		if err != nil || !(r > 1) {
			return fmt.Errorf("-ratios: %q is not a number above 1", f)
		}
		ratios = append(ratios, r)
	}
	table := map[string]*spec.Penalty{}
	for _, s := range model.All() {
		params := penaltyParams(s)
		if len(params) == 0 || (*only != "" && !contains(strings.Split(*only, ","), s.ID)) {
			continue
		}
		src := "gen:" + s.DefaultGenerator()
		n := *maxN
		for ; n > 100; n /= 2 {
			ds, err := loadData(src, n, *noise, 1)
			if err != nil {
				return err
			}
			if s.Estimate(shapeOf(ds), nil).Seconds <= *budget {
				break
			}
		}
		at := func(r, noise float64) Measurement {
			sets := map[string]string{}
			for _, p := range params {
				def, _ := strconv.ParseFloat(s.Param(p).Default, 64)
				sets[p] = strconv.FormatFloat(def*r, 'g', -1, 64)
			}
			m := child(s.ID, src, n, sets, "-noise", strconv.FormatFloat(noise, 'g', -1, 64))
			fmt.Fprintf(os.Stderr, "%-9s n=%-4d noise=%-5g r=%-6g %8.3f s cpu %s\n", s.ID, n, noise, r, m.Seconds, m.Err)
			return m
		}
		// the base, the typical case, is the faster of two runs (the
		// ratios divide by it)
		base := at(1, -1)
		if again := at(1, -1); again.Err == "" && again.Seconds < base.Seconds {
			base = again
		}
		if base.Err != "" || !(base.Seconds > 0) {
			continue
		}
		var xs, ys []float64
		for _, r := range ratios {
			m := at(r, *noise)
			if m.Err != "" {
				break
			}
			xs, ys = append(xs, r), append(ys, math.Max(1, m.Seconds/base.Seconds))
		}
		if len(ys) == 0 || ys[len(ys)-1] < *minGrowth {
			fmt.Printf("%s (n = %d): grows %.1f× up to r = %g: no factor\n", s.ID, n, last(ys), last(xs))
			continue
		}
		p := fitPenalty(xs, ys)
		p.Params = params
		// how much of that growth depends on the overlap: the slow case's
		// training error at the defaults (E), and the growth at the largest
		// ratio on the default noise, whose training error is the base's
		slow := at(1, *noise)
		typical := at(last(xs), -1)
		p.E, p.B = overlapExponent(base.Extras["train_error"], slow.Extras["train_error"],
			typical.Seconds/base.Seconds, last(ys), slow.Err == "" && typical.Err == "")
		table[s.ID] = p
		fmt.Printf("%s (n = %d): %s measured %s, fitted 1 + %.3g·(r^%.2f − 1); training error %.3g (slow case) and %.3g (default noise, growing %.1f× at r = %g): B = %.2f\n",
			s.ID, n, strings.Join(params, ", "), growth(xs, ys), p.A, p.Q, p.E, base.Extras["train_error"], typical.Seconds/base.Seconds, last(xs), p.B)
		if *check > 0 && p.B > 0 {
			// out of sample: the training error at the defaults on the check
			// noise, the time at the largest ratio there, against the factor
			// the estimate would use after such a fit
			c1, cr := at(1, *check), at(last(xs), *check)
			if c1.Err == "" && cr.Err == "" {
				e := c1.Extras["train_error"]
				r := last(xs)
				pred := 1 + p.A*(math.Pow(r, p.Q)-1)*p.OverlapScaleOf(e)
				fmt.Printf("%s check, noise %g (training error %.3g): r = %g measured %.1f×, estimated %.1f× after a fit (%.1f× not knowing the overlap)\n",
					s.ID, *check, e, r, cr.Seconds/base.Seconds, pred, 1+p.A*(math.Pow(r, p.Q)-1))
			}
		}
	}
	src := penaltySource(table, *maxN, *budget, *noise)
	if *write != "" {
		return os.WriteFile(*write, []byte(src), 0o644)
	}
	fmt.Print(src)
	return nil
}

// overlapExponent fits the overlap's effect on a penalty's growth (see
// spec.Penalty): with training errors eTyp (default noise) and eSlow (the
// slow case) at the defaults, and growths gTyp and gSlow at the same large
// ratio, 1 + (gSlow − 1)·(eTyp/eSlow)^B = gTyp. It returns E = eSlow and
// B, clamped to [0.5, 4]; B is 0 (not measured: the factor stays the slow
// case's) when the measurements cannot tell it — a failed fit, no
// overlap in the slow case, or a typical case as slow as the slow one.
func overlapExponent(eTyp, eSlow, gTyp, gSlow float64, ok bool) (e, b float64) {
	if !ok || !(eSlow > 0) || !(gSlow > 1) || !(eTyp < eSlow) || !(gTyp < gSlow) {
		return eSlow, 0
	}
	if eTyp <= 0 || gTyp <= 1 {
		return eSlow, 4 // no measurable growth or overlap on the typical data
	}
	b = math.Log((gTyp-1)/(gSlow-1)) / math.Log(eTyp/eSlow)
	return eSlow, math.Min(4, math.Max(0.5, b))
}

// penaltyParams are a model's penalty parameters: C, or the C_… of its
// views or classes.
func penaltyParams(s *model.Spec) []string {
	var out []string
	for _, p := range s.Params {
		if p.Name == "C" || strings.HasPrefix(p.Name, "C_") {
			out = append(out, p.Name)
		}
	}
	return out
}

// fitPenalty fits 1 + A·(r^Q − 1) to the growth ys at ratios xs by least
// squares on the logarithms (relative errors): Q on a grid, A by a
// one-dimensional Newton iteration from the log-space closed form.
func fitPenalty(xs, ys []float64) *spec.Penalty {
	best, bestErr := &spec.Penalty{}, math.Inf(1)
	for q := 0.2; q <= 2.001; q += 0.02 {
		// start from the A that matches the largest ratio, then refine
		k := len(xs) - 1
		a := (ys[k] - 1) / (math.Pow(xs[k], q) - 1)
		for it := 0; it < 50; it++ {
			var g, h float64
			for i, x := range xs {
				u := math.Pow(x, q) - 1
				f := 1 + a*u
				e := math.Log(f) - math.Log(ys[i])
				g += e * u / f
				h += u * u / (f * f)
			}
			if h == 0 {
				break
			}
			a = math.Max(1e-9, a-g/h)
		}
		var sum float64
		for i, x := range xs {
			e := math.Log(1+a*(math.Pow(x, q)-1)) - math.Log(ys[i])
			sum += e * e
		}
		if sum < bestErr {
			bestErr, best = sum, &spec.Penalty{A: a, Q: q}
		}
	}
	return best
}

func last(v []float64) float64 {
	if len(v) == 0 {
		return 1
	}
	return v[len(v)-1]
}

func growth(xs, ys []float64) string {
	var parts []string
	for i := range xs {
		parts = append(parts, fmt.Sprintf("%.1f× at r = %g", ys[i], xs[i]))
	}
	return strings.Join(parts, ", ")
}

// penaltySource is models/spec/penalties.go.
func penaltySource(table map[string]*spec.Penalty, n int, budget, noise float64) string {
	var b strings.Builder
	b.WriteString("package spec\n\n// Code generated by `go run ./scripts/cost penalty -w models/spec/penalties.go`; DO NOT EDIT.\n")
	fmt.Fprintf(&b, "// Each factor: the time with noise %g over the time at the defaults on the generator's\n// default noise, on each model's generator at n = %d rows, fewer where a fit at the\n// defaults is estimated at over %g s; E the training error at the defaults with noise %g,\n// B the overlap's exponent fitted on the default noise (see Penalty in cost.go).\n\n", noise, n, budget, noise)
	b.WriteString("var penaltyTable = map[string]*Penalty{\n")
	for _, id := range slices.Sorted(maps.Keys(table)) {
		p := table[id]
		q := make([]string, len(p.Params))
		for i, name := range p.Params {
			q[i] = strconv.Quote(name)
		}
		fmt.Fprintf(&b, "\t%q: {Params: []string{%s}, A: %s, Q: %s, E: %s, B: %s},\n", id, strings.Join(q, ", "), g(p.A),
			strconv.FormatFloat(p.Q, 'f', 2, 64), g(p.E), strconv.FormatFloat(p.B, 'f', 2, 64))
	}
	b.WriteString("}\n")
	return formatGo(b.String())
}
