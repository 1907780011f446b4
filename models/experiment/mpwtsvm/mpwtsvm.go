// Package mpwtsvm is paper 001's experiment (Table 3): MPWTSVM against
// SVM+, SVM-2K, MVTSVM, MCPK and PSVM-2V on LUPI Lab's shipped two-view data
// (`lupi experiment mpwtsvm`).
//
// Protocol (paper 001 §5, restated in ../shared/papers/MPWTSVM.md): every
// one-vs-one task of each dataset; per repeat, a stratified random choice of
// per_class training samples per class (paper: 200; here at most half of
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
// The setting methods=SVM-2K,MCPK,… keeps only those columns. SVM+ is the
// hinge SVM+ ("svm1plus", paper 001's reference [40]; svmplus=svm2plus picks
// SVM2+ instead), trained twice: SVM+A learns on view A with view B
// privileged and SVM+B the reverse.
//
// The paper's grid is the default; it is very large (PSVM-2V alone has 7⁵
// points per fold), so grid=small (and Config.Quick) uses a reduced grid in
// which the penalties of a method are tied (values 1 and 100), the
// trade-off is 1, k = 5 and σ takes two data-scaled values (see gridFor);
// Config.Quick uses grid=quick (one σ), two tasks per dataset, 15 training
// samples per class and 2 repeats.
//
// Tasks, per (one-vs-one task, repeat, method): one per grid cell (its
// k-fold cross-validation, every rule scored), then the final fit at the
// best cell and rule. A task's seed is its repeat's, Config.Seed + 1000·task
// + repeat: the training rows and the fits are drawn from it, the folds
// from seed + 7.
package mpwtsvm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"lupilab/models/data"
	"lupilab/models/experiment"
	"lupilab/models/model"
	"lupilab/models/multiview"
	"lupilab/models/stats"
	_ "lupilab/models/svmplus" // SVM+A, SVM+B
	_ "lupilab/models/twin"    // MPWTSVM
)

const paper001 = "R. Xu, H. Wang: Multi-view learning with privileged weighted twin support vector machine (arXiv:2201.11306, 2022), section 5 and Table 3"

func init() {
	experiment.Register(&experiment.Experiment{
		Name:  "mpwtsvm",
		Title: "MPWTSVM vs SVM+, SVM-2K, MVTSVM, MCPK, PSVM-2V on two-view data (the MPWTSVM paper, Table 3)",
		Paper: paper001,
		Settings: []experiment.Setting{
			{Name: "datasets", Kind: experiment.Texts, Default: "segment-twoview,digits-twoview", Help: "shipped two-view datasets"},
			{Name: "grid", Kind: experiment.Choice, Default: "paper", Quick: "quick", Choices: []string{"paper", "small", "quick"}, Help: "the paper's grid or a reduced one"},
			{Name: "tasks", Kind: experiment.Int, Default: "0", Quick: "2", Min: 0, Max: 1e9, Help: "one-vs-one tasks per dataset (0: all)"},
			{Name: "per_class", Kind: experiment.Int, Default: "200", Quick: "15", Min: 5, Help: "training samples per class (at most half the smaller class)"},
			{Name: "folds", Kind: experiment.Int, Default: "5", Min: 2, Help: "cross-validation folds"},
			{Name: "svmplus", Kind: experiment.Choice, Default: "svm1plus", Choices: []string{"svm1plus", "svm2plus"}, Help: "the SVM+ of the SVM+A and SVM+B columns"},
			{Name: "methods", Kind: experiment.Texts, Help: "keep only these columns (e.g. SVM-2K,MCPK)"},
		},
		Repeats:   [2]int{5, 2},
		Plan:      plan,
		RunTask:   runTask,
		Aggregate: aggregate,
	})
}

// setup is what a run's settings and datasets fix: the methods and the
// one-vs-one tasks with their training sizes.
type setup struct {
	methods  []*expMethod
	notes    []string
	tasks    []pairTask
	perClass []int // training samples per class of each task
}

type pairTask struct {
	name string
	ds   *data.Dataset
}

func setupOf(env *experiment.Env) (*setup, error) {
	return experiment.Memo(env, "setup", func() (*setup, error) {
		su := &setup{}
		only := map[string]bool{}
		for _, l := range env.Texts("methods") {
			only[strings.ToUpper(l)] = true
		}
		for _, m := range methodsFor(env.Text("svmplus")) {
			if len(only) > 0 && !only[strings.ToUpper(m.label)] {
				continue
			}
			s, err := model.Lookup(m.id)
			if err != nil {
				su.notes = append(su.notes, fmt.Sprintf("%s skipped: model %q is not registered in this build.", m.label, m.id))
				continue
			}
			m.spec = s
			su.methods = append(su.methods, m)
		}
		if len(su.methods) < 2 {
			return nil, errors.New("mpwtsvm experiment: fewer than two of the compared models are selected")
		}
		maxTasks, perClass, folds := env.Int("tasks"), env.Int("per_class"), env.Int("folds")
		for _, name := range env.Texts("datasets") {
			ds, err := env.Load(name)
			if err != nil {
				return nil, fmt.Errorf("mpwtsvm experiment: %w", err)
			}
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
				su.tasks = append(su.tasks, pairTask{fmt.Sprintf("%s: %s vs %s", ds.Name, p.Neg, p.Pos), t})
			}
		}
		if len(su.tasks) == 0 {
			return nil, errors.New("mpwtsvm experiment: no tasks")
		}
		for _, t := range su.tasks {
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
			su.perClass = append(su.perClass, m)
		}
		return su, nil
	})
}

func (su *setup) method(label string) (*expMethod, error) {
	for _, m := range su.methods {
		if m.label == label {
			return m, nil
		}
	}
	return nil, fmt.Errorf("no method %q", label)
}

// repeatData is one repeat of a task: its scaled training and test parts,
// the grid that scales with them and the folds.
type repeatData struct {
	train, test *data.Dataset
	grid        gridSpec
	folds       [][]int
}

func repeatSeed(env *experiment.Env, ti, r int) int64 { return env.Config.Seed + int64(1000*ti+r) }

// repeat returns repeat (seed) of task ti, once per run.
func repeat(env *experiment.Env, ti int, seed int64) (*repeatData, error) {
	return experiment.Memo(env, fmt.Sprintf("repeat %d %d", ti, seed), func() (*repeatData, error) {
		su, err := setupOf(env)
		if err != nil {
			return nil, err
		}
		if ti < 0 || ti >= len(su.tasks) {
			return nil, fmt.Errorf("no task %d", ti)
		}
		train, test := splitPerClass(su.tasks[ti].ds, su.perClass[ti], seed)
		sc, err := data.FitScaler(train, data.ScaleMinMax)
		if err != nil {
			return nil, err
		}
		train, test = sc.Apply(train), sc.Apply(test)
		folds, err := data.StratifiedKFold(train.Y, env.Int("folds"), seed+7)
		if err != nil {
			return nil, err
		}
		return &repeatData{train: train, test: test, grid: gridFor(env.Text("grid"), train), folds: folds}, nil
	})
}

// spec is a task's descriptor: method M (a column label) on repeat R of
// task T, either grid cell Cell or (Final) the final fit at that cell and
// Rule.
type spec struct {
	T     int    `json:"task"`
	R     int    `json:"repeat"`
	M     string `json:"method"`
	Cell  int    `json:"cell"`
	Final bool   `json:"final,omitempty"`
	Rule  string `json:"rule,omitempty"`
}

func (s spec) id() string {
	if s.Final {
		return fmt.Sprintf("t%d/r%d/%s/final", s.T, s.R, s.M)
	}
	return fmt.Sprintf("t%d/r%d/%s/c%d", s.T, s.R, s.M, s.Cell)
}

// cellOut is a cell's cross-validation: for each decision rule ("" for a
// single-view model) the sum over folds of accuracy × fold size, or the
// failure of a fold.
type cellOut struct {
	Sums map[string]float64 `json:"sums,omitempty"`
	Fail string             `json:"failed,omitempty"`
}

// finalOut is the final fit's test accuracy, or its failure.
type finalOut struct {
	Acc  float64 `json:"accuracy"`
	Fail string  `json:"failed,omitempty"`
}

// choice is the outcome of a method's search on a repeat.
type choice struct {
	cell  int
	rule  string
	cvAcc float64
	err   error // every cell failed
}

// choose picks the best (cell, rule) once every cell has run (ok false
// before): the highest summed CV accuracy, in grid order, then rule order
// "", A, B, both (the first on ties).
func choose(idx map[string]*experiment.Done, s spec, cells int, n int, label string) (choice, bool) {
	var cands []experiment.Candidate
	type key struct {
		cell int
		rule string
	}
	var keys []key
	last := ""
	for c := 0; c < cells; c++ {
		s.Cell = c
		o, _, err := experiment.Output[cellOut](idx, s.id())
		if err != nil {
			return choice{}, false
		}
		if o.Fail != "" {
			last = o.Fail
			continue
		}
		for _, r := range append([]string{""}, rules...) {
			if v, ok := o.Sums[r]; ok {
				cands = append(cands, experiment.Candidate{Score: v, OK: true})
				keys = append(keys, key{c, r})
			}
		}
	}
	b := experiment.Best(cands, false)
	if b < 0 {
		return choice{err: fmt.Errorf("%s: every grid point failed (last error: %v)", label, last)}, true
	}
	return choice{cell: keys[b].cell, rule: keys[b].rule, cvAcc: cands[b].Score / float64(n)}, true
}

func plan(env *experiment.Env, done []experiment.Done) (experiment.Stage, error) {
	su, err := setupOf(env)
	if err != nil {
		return experiment.Stage{}, err
	}
	idx := experiment.Index(done)
	var st experiment.Stage
	add := func(seed int64, s spec) error {
		if _, ok := idx[s.id()]; ok {
			return nil
		}
		t, err := experiment.NewTask(s.id(), seed, s)
		st.Tasks = append(st.Tasks, t)
		return err
	}
	for ti := range su.tasks {
		for r := 0; r < env.Repeats; r++ {
			seed := repeatSeed(env, ti, r)
			rd, err := repeat(env, ti, seed)
			if err != nil {
				return st, err
			}
			for _, m := range su.methods {
				s := spec{T: ti, R: r, M: m.label}
				cells := len(m.grid(rd.grid))
				ch, ok := choose(idx, s, cells, rd.train.Rows(), m.label)
				switch {
				case !ok:
					for c := 0; c < cells; c++ {
						s.Cell = c
						if err := add(seed, s); err != nil {
							return st, err
						}
					}
					st.Later++
				case ch.err == nil:
					if err := add(seed, spec{T: ti, R: r, M: m.label, Cell: ch.cell, Final: true, Rule: ch.rule}); err != nil {
						return st, err
					}
				}
			}
		}
	}
	return st, nil
}

func runTask(ctx context.Context, tc *experiment.TaskContext) (any, error) {
	s, err := experiment.Decode[spec](tc.Task.Spec)
	if err != nil {
		return nil, err
	}
	su, err := setupOf(tc.Env)
	if err != nil {
		return nil, err
	}
	m, err := su.method(s.M)
	if err != nil {
		return nil, err
	}
	rd, err := repeat(tc.Env, s.T, tc.Task.Seed)
	if err != nil {
		return nil, err
	}
	grid := m.grid(rd.grid)
	if s.Cell < 0 || s.Cell >= len(grid) {
		return nil, fmt.Errorf("cell %d of %d", s.Cell, len(grid))
	}
	v := grid[s.Cell]
	train, test := rd.train, rd.test
	if m.swap {
		train, test = swapViews(train), swapViews(test)
	}
	seed := tc.Task.Seed
	if !s.Final {
		sums := map[string]float64{}
		for _, f := range rd.folds {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			fit, err := m.spec.Fit(ctx, data.Subset(train, data.Complement(train.Rows(), f)), v, tc.Options(seed))
			if err != nil {
				return cellOut{Fail: err.Error()}, nil
			}
			sc, err := scoreRules(fit, data.Subset(train, f), m.views)
			if err != nil {
				return cellOut{Fail: err.Error()}, nil
			}
			for r, a := range sc {
				sums[r] += a * float64(len(f))
			}
		}
		return cellOut{Sums: sums}, nil
	}
	best := v.Clone()
	if m.views {
		best["rule"] = s.Rule
	}
	var fit model.Fitted
	err = tc.Time("train", func() error {
		var err error
		fit, err = m.spec.Fit(ctx, train, best, tc.Options(seed))
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return finalOut{Fail: fmt.Sprintf("%s: final fit: %v", m.label, err)}, nil
	}
	sc, err := scoreRules(fit, test, m.views)
	if err != nil {
		return finalOut{Fail: err.Error()}, nil
	}
	return finalOut{Acc: sc[s.Rule]}, nil
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

func aggregate(env *experiment.Env, done []experiment.Done) (*experiment.Result, error) {
	su, err := setupOf(env)
	if err != nil {
		return nil, err
	}
	idx := experiment.Index(done)
	results := make([]map[string]*taskResult, len(su.tasks))
	for ti := range su.tasks {
		results[ti] = map[string]*taskResult{}
		for r := 0; r < env.Repeats; r++ {
			rd, err := repeat(env, ti, repeatSeed(env, ti, r))
			if err != nil {
				return nil, err
			}
			for _, m := range su.methods {
				res := results[ti][m.label]
				if res == nil {
					res = &taskResult{}
					results[ti][m.label] = res
				}
				grid := m.grid(rd.grid)
				ch, ok := choose(idx, spec{T: ti, R: r, M: m.label}, len(grid), rd.train.Rows(), m.label)
				if !ok {
					return nil, fmt.Errorf("%s on task %d: the search has not run", m.label, ti)
				}
				acc, secs, cv, rule := math.NaN(), math.NaN(), math.NaN(), ""
				var best model.Values
				fail := ""
				if ch.err != nil {
					fail = ch.err.Error()
				} else {
					o, d, err := experiment.Output[finalOut](idx, spec{T: ti, R: r, M: m.label, Final: true}.id())
					if err != nil {
						return nil, err
					}
					if fail = o.Fail; fail == "" {
						acc, secs, cv, rule = o.Acc, d.Timing["train"], ch.cvAcc, ch.rule
						best = grid[ch.cell].Clone()
						if m.views {
							best["rule"] = ch.rule
						}
					}
				}
				if fail != "" {
					res.Errors = append(res.Errors, fail)
				}
				res.Acc = append(res.Acc, acc)
				res.Seconds = append(res.Seconds, secs)
				res.CVAcc = append(res.CVAcc, cv)
				res.Params = append(res.Params, best)
				res.Rules = append(res.Rules, rule)
			}
		}
	}
	names := make([]string, len(su.tasks))
	for i, t := range su.tasks {
		names[i] = t.name
	}
	return buildResult(env.Config, env.Text("grid"), env.Repeats, su.perClass, env.Int("folds"), su.methods, names, results, append([]string(nil), su.notes...))
}

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

// expMethod is one column of the table.
type expMethod struct {
	label string // column name
	id    string // registry id
	swap  bool   // train on view B with view A privileged (SVM+B)
	views bool   // two-view model: choose the rule by CV
	spec  *model.Spec
	dims  func(g gridSpec) []gridDim
}

// gridDim is one axis of a method's grid (tied parameters).
type gridDim = experiment.Axis

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
		return []gridDim{{Names: names, Values: fl(g.penalties)}}
	}
	var out []gridDim
	for _, n := range names {
		out = append(out, gridDim{Names: []string{n}, Values: fl(g.penalties)})
	}
	return out
}

func methodsFor(svmplus string) []*expMethod {
	tr := func(g gridSpec, name string) gridDim { return gridDim{Names: []string{name}, Values: fl(g.tradeoffs)} }
	return []*expMethod{
		{label: "SVM+A", id: svmplus, dims: func(g gridSpec) []gridDim {
			return []gridDim{{Names: []string{"C"}, Values: fl(g.penalties)}, tr(g, "lambda")}
		}},
		{label: "SVM+B", id: svmplus, swap: true, dims: func(g gridSpec) []gridDim {
			return []gridDim{{Names: []string{"C"}, Values: fl(g.penalties)}, tr(g, "lambda")}
		}},
		{label: "SVM-2K", id: "svm2k", views: true, dims: func(g gridSpec) []gridDim { return penaltyDims(g, "C", "CB", "D") }},
		// Paper 001: C1 = C2 = C3 = C4 and D = H.
		{label: "MVTSVM", id: "mvtsvm", views: true, dims: func(g gridSpec) []gridDim {
			if g.small {
				return []gridDim{{Names: []string{"C", "C2", "D", "H"}, Values: fl(g.penalties)}}
			}
			return []gridDim{{Names: []string{"C", "C2"}, Values: fl(g.penalties)}, {Names: []string{"D", "H"}, Values: fl(g.penalties)}}
		}},
		// Paper 001: C_A = C_B = D for MCPK.
		{label: "MCPK", id: "mcpk", views: true, dims: func(g gridSpec) []gridDim {
			return []gridDim{{Names: []string{"C", "CB", "D"}, Values: fl(g.penalties)}, tr(g, "tradeoff")}
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
			return []gridDim{{Names: []string{"ca", "cb", "c"}, Values: fl(g.penalties)}, tr(g, "gamma_b"), {Names: []string{"k"}, Values: ks}}
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
	dims := append(m.dims(g), gridDim{Names: []string{"gamma", "zgamma"}, Values: gammas})
	var axes []experiment.Axis
	for _, d := range dims {
		var names []string
		for _, n := range d.Names {
			if m.spec.Param(n) != nil {
				names = append(names, n)
			}
		}
		if len(names) > 0 {
			axes = append(axes, experiment.Axis{Names: names, Values: d.Values})
		}
	}
	return experiment.Cells(base, axes...)
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

var rules = []string{multiview.RuleA, multiview.RuleB, multiview.RuleBoth}

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
		d := multiview.Combine(r, a, b)
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
			mu, _ := stats.MeanSD(r.Acc)
			meanAcc[ti][j] = 100 * mu
			row = append(row, experiment.MeanSD(r.Acc, 100, 2, " ± "))
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
	summary := experiment.Table{Title: "Summary (ours), with the MPWTSVM paper's Table 3 beside it", Columns: append([]string{""}, cols[1:]...)}
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
		mu, _ := stats.MeanSD(col)
		tm, _ := stats.MeanSD(times[j])
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
		"Paper rows: the MPWTSVM paper's Table 3 (AwA, 45 one-vs-one tasks, 200 training samples per class, MATLAB on an i7-6700). " +
			"Its text calls the 85.22 % column SVM+A and the 73.59 % one SVM+B, the reverse of the table's column order; we copy the table.",
		"W/D/L compares mean accuracies per task at the printed precision (0.01 %); ranks likewise (ties share the mean rank).",
	}
	statT := experiment.Table{Title: "Friedman test and Nemenyi critical difference (the MPWTSVM paper's eqs 40–41)", Columns: []string{"Quantity", "Ours", "Paper"}}
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
	paperT := experiment.Table{Title: "The MPWTSVM paper, Table 3 (summary rows, AwA)", Columns: append([]string{""}, paperTable3.methods...),
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
	if experiment.CPUClock() {
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
