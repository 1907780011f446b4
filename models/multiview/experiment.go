package multiview

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"

	"lupilab/models/data"
	"lupilab/models/experiment"
	"lupilab/models/model"
	"lupilab/models/stats"
)

// The `lupi experiment mpwtsvm` reproduction of paper 001's Table 3 on LUPI
// Lab's shipped two-view data.
//
// Protocol (paper 001 §5, restated in ../shared/papers/MPWTSVM.md): every
// one-vs-one task of each dataset; per repeat, a stratified random choice of
// "per_class" training samples per class (paper: 200; here at most half of
// the smaller class, quick: 15) and the rest as test samples; both views
// scaled to [0, 1] on the training part; RBF kernels exp(−‖x−x'‖²/σ²) with
// one σ for both views; every method's parameters chosen by 5-fold
// cross-validation on the training part over the paper's grid (§5.1:
// penalties, trade-off γ and σ in {10⁻³, …, 10³}, k in {3, 5, 7, 9, 11});
// for the two-view methods the rule (view A, view B or both) is chosen by
// cross-validation too ("choose the one who has the highest precision");
// then the method is refitted on the whole training part with the chosen
// parameters, timed, and scored on the test part. Repeats: 5 (quick: 2).
//
// Methods are looked up in the model registry by id; missing ones are
// skipped with a note; Args methods=SVM-2K,MCPK,… keeps only those columns. SVM+ is the hinge SVM+ ("svm1plus", paper 001's
// reference [40]; Args svmplus=svm2plus picks SVM2+ instead), trained twice:
// SVM+A learns on view A with view B privileged and SVM+B the reverse.
//
// The paper's grid is the default; it is very large (PSVM-2V alone has 7⁵
// points per fold), so Args grid=small (and Config.Quick) uses a reduced grid
// in which the penalties of a method are tied (values 1 and 100), the
// trade-off is 1, k = 5 and σ takes two data-scaled values (see gridFor);
// Config.Quick uses grid=quick (one σ), two tasks per dataset, 15 training
// samples per class and 2 repeats.

// paperTable3 is paper 001's Table 3 summary (columns in the paper's order).
var paperTable3 = struct {
	methods           []string
	acc, time, rank   []string
	wdl               []string
	chi2, p, q, cd, n string
}{
	methods: []string{"SVM+A", "SVM+B", "SVM-2K", "MVTSVM", "MCPK", "PSVM-2V", "MPWTSVM"},
	acc:     []string{"73.59", "85.22", "77.94", "76.50", "85.72", "85.64", "87.57"},
	time:    []string{"0.111", "0.138", "0.347", "0.067", "0.088", "0.858", "0.042"},
	rank:    []string{"6.678", "3.011", "5.500", "5.756", "2.678", "2.911", "1.467"},
	wdl:     []string{"45/0/0", "37/2/6", "45/0/0", "45/0/0", "35/5/5", "38/2/5", "0/45/0"},
	chi2:    "222.11", p: "2.2e-16", q: "2.949", cd: "1.343", n: "45",
}

const paper001 = "R. Xu, H. Wang: Multi-view learning with privileged weighted twin support vector machine (arXiv:2201.11306, 2022), section 5 and Table 3"

func init() {
	experiment.Register(&experiment.Experiment{
		Name:  "mpwtsvm",
		Title: "MPWTSVM vs SVM+, SVM-2K, MVTSVM, MCPK, PSVM-2V on two-view data (paper 001, Table 3)",
		Paper: paper001,
		Run:   runMPWTSVMExperiment,
	})
}

// expMethod is one column of the table.
type expMethod struct {
	label string // column name
	id    string // registry id
	swap  bool   // train on view B with view A privileged (SVM+B)
	views bool   // two-view model: choose the rule by CV
	spec  *model.Spec
	dims  func(g gridSpec) []gridDim
}

type gridDim struct {
	names  []string // parameters set to the same value
	values []string
}

type gridSpec struct {
	small     bool
	penalties []float64
	tradeoffs []float64
	sigmas    []float64
	ks        []int
}

func fl(xs []float64) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return out
}

// penaltyDims ties the named penalties on the small grid and searches them
// independently on the paper's grid.
func penaltyDims(g gridSpec, names ...string) []gridDim {
	if g.small {
		return []gridDim{{names, fl(g.penalties)}}
	}
	var out []gridDim
	for _, n := range names {
		out = append(out, gridDim{[]string{n}, fl(g.penalties)})
	}
	return out
}

func methodsFor(svmplus string) []*expMethod {
	tr := func(g gridSpec, name string) gridDim { return gridDim{[]string{name}, fl(g.tradeoffs)} }
	return []*expMethod{
		{label: "SVM+A", id: svmplus, dims: func(g gridSpec) []gridDim {
			return []gridDim{{[]string{"C"}, fl(g.penalties)}, tr(g, "lambda")}
		}},
		{label: "SVM+B", id: svmplus, swap: true, dims: func(g gridSpec) []gridDim {
			return []gridDim{{[]string{"C"}, fl(g.penalties)}, tr(g, "lambda")}
		}},
		{label: "SVM-2K", id: "svm2k", views: true, dims: func(g gridSpec) []gridDim { return penaltyDims(g, "C", "CB", "D") }},
		// Paper 001: C1 = C2 = C3 = C4 and D = H.
		{label: "MVTSVM", id: "mvtsvm", views: true, dims: func(g gridSpec) []gridDim {
			if g.small {
				return []gridDim{{[]string{"C", "C2", "D", "H"}, fl(g.penalties)}}
			}
			return []gridDim{{[]string{"C", "C2"}, fl(g.penalties)}, {[]string{"D", "H"}, fl(g.penalties)}}
		}},
		// Paper 001: C_A = C_B = D for MCPK.
		{label: "MCPK", id: "mcpk", views: true, dims: func(g gridSpec) []gridDim {
			return []gridDim{{[]string{"C", "CB", "D"}, fl(g.penalties)}, tr(g, "tradeoff")}
		}},
		{label: "PSVM-2V", id: "psvm2v", views: true, dims: func(g gridSpec) []gridDim {
			return append(penaltyDims(g, "C", "CB", "D"), tr(g, "tradeoff"))
		}},
		// Paper 001: C_A = C_B = C = D for MPWTSVM, k ∈ {3,…,11}.
		{label: "MPWTSVM", id: "mpwtsvm", views: true, dims: func(g gridSpec) []gridDim {
			ks := make([]string, len(g.ks))
			for i, k := range g.ks {
				ks[i] = strconv.Itoa(k)
			}
			return []gridDim{{[]string{"ca", "cb", "c"}, fl(g.penalties)}, tr(g, "gamma_b"), {[]string{"k"}, ks}}
		}},
	}
}

// grid expands a method's grid (with the σ dimension) into parameter values.
func (m *expMethod) grid(g gridSpec) []model.Values {
	base := m.spec.Defaults()
	for _, k := range []string{"kernel", "zkernel"} {
		if m.spec.Param(k) != nil {
			base[k] = "rbf"
		}
	}
	if m.spec.Param("multiclass") != nil {
		base["multiclass"] = "ovo"
	}
	var gammas []string
	for _, s := range g.sigmas {
		gammas = append(gammas, strconv.FormatFloat(1/(s*s), 'g', -1, 64))
	}
	dims := append(m.dims(g), gridDim{[]string{"gamma", "zgamma"}, gammas})
	out := []model.Values{base}
	for _, d := range dims {
		var names []string
		for _, n := range d.names {
			if m.spec.Param(n) != nil {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			continue
		}
		var next []model.Values
		for _, v := range out {
			for _, val := range d.values {
				w := v.Clone()
				for _, n := range names {
					w[n] = val
				}
				next = append(next, w)
			}
		}
		out = next
	}
	return out
}

// taskResult holds one method's results on one task over the repeats.
type taskResult struct {
	Acc     []float64      `json:"test_accuracy"`
	Seconds []float64      `json:"train_seconds"`
	CVAcc   []float64      `json:"cv_accuracy"`
	Params  []model.Values `json:"params"`
	Rules   []string       `json:"rules,omitempty"`
	Errors  []string       `json:"errors,omitempty"`
}

func runMPWTSVMExperiment(ctx context.Context, cfg experiment.Config) (*experiment.Result, error) {
	names := []string{"segment-twoview", "digits-twoview"}
	if s := cfg.Args["datasets"]; s != "" {
		names = strings.Split(s, ",")
	}
	var sets []*data.Dataset
	for _, n := range names {
		ds, err := cfg.Load(strings.TrimSpace(n))
		if err != nil {
			return nil, fmt.Errorf("mpwtsvm experiment: %w", err)
		}
		sets = append(sets, ds)
	}
	return RunMPWTSVM(ctx, cfg, sets)
}

// argInt reads an integer experiment argument.
func argInt(cfg experiment.Config, name string, def int) (int, error) {
	s, ok := cfg.Args[name]
	if !ok || s == "" {
		return def, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("mpwtsvm experiment: %s = %q is not an integer", name, s)
	}
	return v, nil
}

// RunMPWTSVM runs the protocol on the given two-view datasets (exported for
// tests and the app, which pass their own data).
func RunMPWTSVM(ctx context.Context, cfg experiment.Config, sets []*data.Dataset) (*experiment.Result, error) {
	gridName := cfg.Args["grid"]
	if gridName == "" {
		gridName = "paper"
		if cfg.Quick {
			gridName = "quick"
		}
	}
	switch gridName {
	case "paper", "small", "quick":
	default:
		return nil, fmt.Errorf("mpwtsvm experiment: grid %q is not one of paper, small, quick", gridName)
	}
	repeats := 5
	if cfg.Quick {
		repeats = 2
	}
	if cfg.Repeats > 0 {
		repeats = cfg.Repeats
	}
	maxTasks, err := argInt(cfg, "tasks", 0) // per dataset; 0 = all
	if err != nil {
		return nil, err
	}
	if cfg.Quick && cfg.Args["tasks"] == "" {
		maxTasks = 2
	}
	perClassDef := 200
	if cfg.Quick {
		perClassDef = 15
	}
	perClass, err := argInt(cfg, "per_class", perClassDef)
	if err != nil || perClass < 5 {
		return nil, fmt.Errorf("mpwtsvm experiment: per_class must be an integer ≥ 5 (5-fold CV): %v", err)
	}
	folds, err := argInt(cfg, "folds", 5)
	if err != nil || folds < 2 {
		return nil, fmt.Errorf("mpwtsvm experiment: folds must be ≥ 2: %v", err)
	}
	svmplus := cfg.Args["svmplus"]
	if svmplus == "" {
		svmplus = "svm1plus"
	}

	var notes []string
	var methods []*expMethod
	only := map[string]bool{}
	if s := cfg.Args["methods"]; s != "" {
		for _, l := range strings.Split(s, ",") {
			only[strings.ToUpper(strings.TrimSpace(l))] = true
		}
	}
	for _, m := range methodsFor(svmplus) {
		if len(only) > 0 && !only[strings.ToUpper(m.label)] {
			continue
		}
		s, err := model.Lookup(m.id)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s skipped: model %q is not registered in this build.", m.label, m.id))
			continue
		}
		m.spec = s
		methods = append(methods, m)
	}
	if len(methods) < 2 {
		return nil, errors.New("mpwtsvm experiment: fewer than two of the compared models are registered")
	}

	type task struct {
		name string
		ds   *data.Dataset
	}
	var tasks []task
	for _, ds := range sets {
		if ds.Z == nil {
			return nil, fmt.Errorf("mpwtsvm experiment: dataset %s has no second view", ds.Name)
		}
		pairs := data.OneVsOnePairs(ds)
		if maxTasks > 0 && len(pairs) > maxTasks {
			pairs = pairs[:maxTasks]
		}
		for _, p := range pairs {
			t, err := data.OneVsOne(ds, p.Neg, p.Pos)
			if err != nil {
				return nil, err
			}
			tasks = append(tasks, task{fmt.Sprintf("%s: %s vs %s", ds.Name, p.Neg, p.Pos), t})
		}
	}
	if len(tasks) == 0 {
		return nil, errors.New("mpwtsvm experiment: no tasks")
	}

	results := make([]map[string]*taskResult, len(tasks))
	total := float64(len(tasks) * repeats * len(methods))
	done := 0.0
	report := func(stage string) {
		if cfg.Progress != nil {
			cfg.Progress(model.Progress{Fraction: done / total, Stage: stage})
		}
	}
	var perClassUsed []int
	for ti, t := range tasks {
		results[ti] = map[string]*taskResult{}
		counts := t.ds.ClassCounts()
		m := perClass
		for _, c := range counts {
			if c/2 < m {
				m = c / 2 // keep at least half of each class for testing
			}
		}
		if m < folds {
			return nil, fmt.Errorf("mpwtsvm experiment: %s: a class has %v samples, too few for %d training samples per class and %d folds", t.name, counts, folds, folds)
		}
		perClassUsed = append(perClassUsed, m)
		for r := 0; r < repeats; r++ {
			seed := cfg.Seed + int64(1000*ti+r)
			train, test := splitPerClass(t.ds, m, seed)
			sc, err := data.FitScaler(train, data.ScaleMinMax)
			if err != nil {
				return nil, err
			}
			train, test = sc.Apply(train), sc.Apply(test)
			g := gridFor(gridName, train)
			cvFolds, err := data.StratifiedKFold(train.Y, folds, seed+7)
			if err != nil {
				return nil, err
			}
			for _, meth := range methods {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				report(fmt.Sprintf("%s, repeat %d, %s", t.name, r+1, meth.label))
				res := results[ti][meth.label]
				if res == nil {
					res = &taskResult{}
					results[ti][meth.label] = res
				}
				// The fits report to the page too (the browser yields in
				// the progress callback), keeping the experiment's fraction.
				fitProgress := func(p model.Progress) {
					if cfg.Progress != nil {
						cfg.Progress(model.Progress{Fraction: done / total, Stage: p.Stage, Message: p.Message})
					}
				}
				acc, secs, cv, best, rule, err := runMethod(ctx, meth, g, train, test, cvFolds, seed, fitProgress)
				if err != nil {
					if ctx.Err() != nil {
						return nil, ctx.Err()
					}
					res.Errors = append(res.Errors, err.Error())
					acc, secs, cv = math.NaN(), math.NaN(), math.NaN()
				}
				res.Acc = append(res.Acc, acc)
				res.Seconds = append(res.Seconds, secs)
				res.CVAcc = append(res.CVAcc, cv)
				res.Params = append(res.Params, best)
				res.Rules = append(res.Rules, rule)
				done++
			}
		}
	}
	report("done")
	return buildResult(cfg, gridName, repeats, perClassUsed, folds, methods, tasks2names(tasks, func(t task) string { return t.name }), results, notes)
}

func tasks2names[T any](ts []T, f func(T) string) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = f(t)
	}
	return out
}

// splitPerClass draws m training rows per class (stratified, seeded); the
// rest are test rows.
func splitPerClass(ds *data.Dataset, m int, seed int64) (train, test *data.Dataset) {
	rng := data.NewRand(seed)
	byClass := map[int][]int{}
	for i, c := range ds.Y {
		byClass[c] = append(byClass[c], i)
	}
	classes := make([]int, 0, len(byClass))
	for c := range byClass {
		classes = append(classes, c)
	}
	sort.Ints(classes)
	var tr, te []int
	for _, c := range classes {
		rows := byClass[c]
		rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		tr = append(tr, rows[:m]...)
		te = append(te, rows[m:]...)
	}
	sort.Ints(tr)
	sort.Ints(te)
	return data.Subset(ds, tr), data.Subset(ds, te)
}

// gridFor returns the paper's grid ("paper") or a reduced one ("small": tied
// penalties in {1, 100}, trade-off 1, k = 5, σ ∈ {0.5, 2}·s; "quick": the
// same with σ = s only). The reduced σ values scale with the data: for
// features in [0, 1] the mean squared distance between two samples grows
// with the dimension d, so s = √(d/6) (d of the larger view) keeps the
// kernel away from 0 and 1.
func gridFor(name string, train *data.Dataset) gridSpec {
	decades := []float64{1e-3, 1e-2, 1e-1, 1, 1e1, 1e2, 1e3}
	if name == "paper" {
		return gridSpec{penalties: decades, tradeoffs: decades, sigmas: decades, ks: []int{3, 5, 7, 9, 11}}
	}
	d := math.Max(float64(train.Dim()), float64(train.ZDim()))
	s := math.Sqrt(d / 6)
	sig := []float64{0.5 * s, 2 * s}
	if name == "quick" {
		sig = []float64{s}
	}
	return gridSpec{small: true, penalties: []float64{1, 100}, tradeoffs: []float64{1}, sigmas: sig, ks: []int{5}}
}

// swapViews returns ds with X and Z exchanged (SVM+B).
func swapViews(ds *data.Dataset) *data.Dataset {
	out := *ds
	out.X, out.Z = ds.Z, ds.X
	out.XNames, out.ZNames = ds.ZNames, ds.XNames
	return &out
}

var rules = []string{RuleA, RuleB, RuleBoth}

// scoreRules returns the accuracy of each decision rule on ds (one entry
// for single-view models).
func scoreRules(f model.Fitted, ds *data.Dataset, views bool) (map[string]float64, error) {
	p, err := f.Predict(ds)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	if !views || p.Views == nil {
		ok := 0
		for i, l := range p.Labels {
			if l == ds.Y[i] {
				ok++
			}
		}
		out[""] = float64(ok) / float64(len(ds.Y))
		return out, nil
	}
	a, b := p.Views["A"], p.Views["B"]
	for _, r := range rules {
		d := combine(r, a, b)
		ok := 0
		for i, v := range d {
			if (v > 0) == (ds.Y[i] == 1) {
				ok++
			}
		}
		out[r] = float64(ok) / float64(len(ds.Y))
	}
	return out, nil
}

// runMethod selects a method's parameters and rule by k-fold CV on train,
// refits on all of train (timed) and scores test.
func runMethod(ctx context.Context, m *expMethod, g gridSpec, train, test *data.Dataset, folds [][]int, seed int64, progress func(model.Progress)) (acc, secs, cvAcc float64, best model.Values, rule string, err error) {
	if m.swap {
		train, test = swapViews(train), swapViews(test)
	}
	grid := m.grid(g)
	n := train.Rows()
	type key struct {
		g    int
		rule string
	}
	sum := map[key]float64{}
	var lastErr error
	for gi, v := range grid {
		ok := true
		for _, f := range folds {
			if err := ctx.Err(); err != nil {
				return 0, 0, 0, nil, "", err
			}
			tr := data.Subset(train, data.Complement(n, f))
			va := data.Subset(train, f)
			fit, err := m.spec.Fit(ctx, tr, v, model.Options{Seed: seed, Progress: progress})
			if err != nil {
				ok, lastErr = false, err
				break
			}
			sc, err := scoreRules(fit, va, m.views)
			if err != nil {
				ok, lastErr = false, err
				break
			}
			for r, a := range sc {
				sum[key{gi, r}] += a * float64(len(f))
			}
		}
		if !ok {
			for _, r := range append(rules, "") {
				delete(sum, key{gi, r})
			}
		}
	}
	if len(sum) == 0 {
		return 0, 0, 0, nil, "", fmt.Errorf("%s: every grid point failed (last error: %v)", m.label, lastErr)
	}
	bk, bv := key{-1, ""}, -1.0
	for gi := range grid { // deterministic order: grid order, then A, B, both
		for _, r := range append([]string{""}, rules...) {
			if s, ok := sum[key{gi, r}]; ok && s > bv {
				bk, bv = key{gi, r}, s
			}
		}
	}
	best = grid[bk.g].Clone()
	if m.views {
		best["rule"] = bk.rule
	}
	// Training time of the final fit: process CPU time where the platform
	// reports it (the machine may be shared), wall-clock time otherwise.
	// (In the browser, where wall time is used, the time spent in progress
	// reports — the page's turns — is not training time.)
	var pc model.PauseClock
	start := time.Now()
	cpu0, cpuOK := processCPU()
	fit, err := m.spec.Fit(ctx, train, best, model.Options{Seed: seed, Progress: pc.Wrap(progress)})
	secs = (time.Since(start) - pc.Paused).Seconds()
	if cpu1, ok := processCPU(); ok && cpuOK {
		secs = cpu1 - cpu0
	}
	if err != nil {
		return 0, 0, 0, nil, "", fmt.Errorf("%s: final fit: %w", m.label, err)
	}
	sc, err := scoreRules(fit, test, m.views)
	if err != nil {
		return 0, 0, 0, nil, "", err
	}
	return sc[bk.rule], secs, bv / float64(n), best, bk.rule, nil
}

func meanSD(x []float64) (float64, float64) {
	var ok []float64
	for _, v := range x {
		if !math.IsNaN(v) {
			ok = append(ok, v)
		}
	}
	if len(ok) == 0 {
		return math.NaN(), math.NaN()
	}
	if len(ok) == 1 {
		return ok[0], 0
	}
	return stat.MeanStdDev(ok, nil) // sample standard deviation (n − 1), as MATLAB's std
}

func buildResult(cfg experiment.Config, gridName string, repeats int, perClass []int, folds int, methods []*expMethod,
	taskNames []string, results []map[string]*taskResult, notes []string) (*experiment.Result, error) {
	k := len(methods)
	cols := []string{"Task"}
	for _, m := range methods {
		cols = append(cols, m.label)
	}
	per := experiment.Table{Title: "Test accuracy (%) per task, mean ± sd over repeats", Columns: cols}
	meanAcc := make([][]float64, len(taskNames)) // [task][method]
	times := make([][]float64, k)
	for ti, name := range taskNames {
		row := []string{name}
		meanAcc[ti] = make([]float64, k)
		for j, m := range methods {
			r := results[ti][m.label]
			mu, sd := meanSD(r.Acc)
			meanAcc[ti][j] = 100 * mu
			row = append(row, fmt.Sprintf("%.2f ± %.2f", 100*mu, 100*sd))
			for _, s := range r.Seconds {
				if !math.IsNaN(s) {
					times[j] = append(times[j], s)
				}
			}
			if len(r.Errors) > 0 {
				notes = append(notes, fmt.Sprintf("%s on %s: %d failure(s), e.g. %s", m.label, name, len(r.Errors), r.Errors[0]))
			}
		}
		per.Rows = append(per.Rows, row)
	}
	// Failed runs (NaN) rank last.
	rankScores := make([][]float64, len(meanAcc))
	for i, row := range meanAcc {
		rankScores[i] = make([]float64, k)
		for j, v := range row {
			if math.IsNaN(v) {
				v = -1
			}
			// Compare accuracies at the printed precision (0.01 %), as a reader of the table would.
			rankScores[i][j] = math.Round(v*100) / 100
		}
	}
	avgRank, err := stats.AverageRanks(rankScores, true)
	if err != nil {
		return nil, err
	}
	fr, err := stats.FriedmanTest(rankScores, true)
	if err != nil {
		return nil, err
	}
	summary := experiment.Table{Title: "Summary (ours), with paper 001 Table 3 beside it", Columns: append([]string{""}, cols[1:]...)}
	accRow, timeRow, rankRow, wdlRow := []string{"Avg. accuracy (%)"}, []string{"Avg. training time (s)" + cpuLabel()}, []string{"Avg. rank"}, []string{"W/D/L of MPWTSVM"}
	mp := -1
	for j, m := range methods {
		if m.label == "MPWTSVM" {
			mp = j
		}
	}
	wdls := map[string]string{}
	for j, m := range methods {
		col := make([]float64, len(meanAcc))
		for i := range meanAcc {
			col[i] = meanAcc[i][j]
		}
		mu, _ := meanSD(col)
		tm, _ := meanSD(times[j])
		accRow = append(accRow, fmt.Sprintf("%.2f", mu))
		timeRow = append(timeRow, fmt.Sprintf("%.4f", tm))
		rankRow = append(rankRow, fmt.Sprintf("%.3f", avgRank[j]))
		if mp >= 0 {
			a, b := make([]float64, len(meanAcc)), make([]float64, len(meanAcc))
			for i := range meanAcc {
				a[i], b[i] = rankScores[i][mp], rankScores[i][j]
			}
			w, _ := stats.WinDrawLoss(a, b, 1e-9)
			wdlRow = append(wdlRow, w.String())
			wdls[m.label] = w.String()
		} else {
			wdlRow = append(wdlRow, "—")
		}
	}
	paperCol := map[string]int{}
	for i, l := range paperTable3.methods {
		paperCol[l] = i
	}
	pick := func(vals []string) []string {
		var out []string
		for _, m := range methods {
			if i, ok := paperCol[m.label]; ok {
				out = append(out, vals[i])
			} else {
				out = append(out, "—")
			}
		}
		return out
	}
	summary.Rows = [][]string{
		accRow, append([]string{"Avg. accuracy (%), paper"}, pick(paperTable3.acc)...),
		timeRow, append([]string{"Avg. training time (s), paper"}, pick(paperTable3.time)...),
		rankRow, append([]string{"Avg. rank, paper"}, pick(paperTable3.rank)...),
		wdlRow, append([]string{"W/D/L of MPWTSVM, paper"}, pick(paperTable3.wdl)...),
	}
	summary.Notes = []string{
		"Paper rows: paper 001 Table 3 (AwA, 45 one-vs-one tasks, 200 training samples per class, MATLAB on an i7-6700). " +
			"Its text calls the 85.22 % column SVM+A and the 73.59 % one SVM+B, the reverse of the table's column order; we copy the table.",
		"W/D/L compares mean accuracies per task at the printed precision (0.01 %); ranks likewise (ties share the mean rank).",
	}
	statT := experiment.Table{Title: "Friedman test and Nemenyi critical difference (paper 001 eqs 40–41)", Columns: []string{"Quantity", "Ours", "Paper 001"}}
	cdStr := "—"
	if cd, err := stats.NemenyiCD(0.05, k, len(taskNames)); err == nil {
		cdStr = fmt.Sprintf("%.3f", cd)
	}
	q, _ := stats.NemenyiQ(0.05, k)
	statT.Rows = [][]string{
		{"N tasks, k methods", fmt.Sprintf("%d, %d", len(taskNames), k), paperTable3.n + ", 7"},
		{"Friedman χ²_F (eq 40)", fmt.Sprintf("%.3f", fr.ChiSquare), "—"},
		{"p-value (χ², k−1 df)", fmt.Sprintf("%.3g", fr.P), "—"},
		{"χ²_F with tie correction (as R / scipy)", fmt.Sprintf("%.3f", fr.ChiSquareTies), paperTable3.chi2},
		{"p-value, tie-corrected", fmt.Sprintf("%.3g", fr.PTies), "< " + paperTable3.p},
		{"Iman–Davenport F_F", fmt.Sprintf("%.3f (p = %.3g)", fr.FF, fr.PF), "—"},
		{"q_0.05", fmt.Sprintf("%.3f", q), paperTable3.q},
		{"Nemenyi CD (α = 0.05, eq 41)", cdStr, paperTable3.cd},
	}
	statT.Notes = []string{"The paper reports R's friedman.test, which applies the tie correction; its 2.2e-16 is R's printing floor."}
	paperT := experiment.Table{Title: "Paper 001, Table 3 (summary rows, AwA)", Columns: append([]string{""}, paperTable3.methods...),
		Rows: [][]string{
			append([]string{"Avg.Acc. (%)"}, paperTable3.acc...),
			append([]string{"Avg.Time (s)"}, paperTable3.time...),
			append([]string{"Avg.Rank"}, paperTable3.rank...),
			append([]string{"W/D/L"}, paperTable3.wdl...),
		},
		Notes: []string{"Friedman χ² = 222.11, p < 2.2e-16; q_0.05 = 2.949, CD = 1.343 (section 5.4)."}}
	per.Notes = notes
	pc := perClass[0]
	for _, p := range perClass {
		if p < pc {
			pc = p
		}
	}
	raw := map[string]any{"tasks": taskNames, "methods": labels(methods), "results": results,
		"mean_accuracy": meanAcc, "avg_ranks": avgRank, "friedman": fr, "wdl_mpwtsvm": wdls}
	return &experiment.Result{
		Name:  "mpwtsvm",
		Paper: paper001,
		Config: map[string]any{"quick": cfg.Quick, "grid": gridName, "repeats": repeats, "folds": folds,
			"train_per_class_min": pc, "seed": cfg.Seed, "tasks": len(taskNames), "scaling": "minmax [0,1] on the training part",
			"kernel": "RBF exp(−‖x−x'‖²/σ²), one σ for both views"},
		Tables:      []experiment.Table{summary, statT, per},
		PaperTables: []experiment.Table{paperT},
		Raw:         raw,
	}, nil
}

func cpuLabel() string {
	if _, ok := processCPU(); ok {
		return ", CPU"
	}
	return ", wall clock"
}

func labels(ms []*expMethod) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.label
	}
	return out
}
