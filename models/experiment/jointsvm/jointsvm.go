// Package jointsvm is paper 003's experiment (Fig. 1): the joint SVM with a
// Gaussian and with a polynomial output kernel against independent SVMs, one
// per tag, on the same RBF input kernel, on the shipped digit-mosaic tags
// (`lupi experiment jointsvm`).
//
// Protocol: one seeded shuffle of the rows (an optional subsample), then
// test (setting test, default 0.1 as the paper's 500 of 5000), validation
// (val of the rest, default 1/9 as the paper's 500 of 4500) and fit rows;
// tags constant on the fit rows are dropped. As in the paper, C is chosen
// for each method on the validation rows (by the F1 of Fig. 1: macro
// precision and recall, F1 = 2PR/(P+R)); the same validation also picks the
// input RBF γ (from a grid around 1/d, for every method alike) and the
// output Gaussian's scale σ² (the paper's "scaled" covariance leaves the
// scale open). Then each is retrained on all training rows with its chosen
// values and timed on training and testing. Features are standardised on
// the rows a model is fitted on.
//
// Tasks: one per (method, grid point) — a validation fit; then one per
// method — the final fit at the chosen point, ready as soon as that
// method's own validation fits are done. Every task's seed is
// Config.Seed (the fits' seed; the shuffle is drawn from it too).
package jointsvm

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/experiment"
	"lupilab/models/joint"
	"lupilab/models/kernel"
	"lupilab/models/metrics"
	"lupilab/models/model"
)

// Paper 003, Fig. 1 (Corel5K: 4500 training / 500 test images, 260 tags,
// the RgbV3H1 feature; Python, Intel Core i7): training time (s), testing
// time (s), precision, recall, F1.
var paperFig1 = [][]string{
	{"Independent SVMs", "6285.11", "317.20", "0.1049", "0.1225", "0.1130"},
	{"Joint SVM (Gaussian)", "80.68", "6.92", "0.4078", "0.3713", "0.3887"},
	{"Joint SVM (Polynomial)", "76.48", "9.11", "0.3908", "0.3565", "0.3728"},
	{"The best result in [10] (Makadia et al. 2010)", "–", "–", "0.27", "0.32", "0.292"},
}

func init() {
	experiment.Register(&experiment.Experiment{
		Name:  "jointsvm",
		Title: "Joint SVM vs independent SVMs for multi-label tagging (the joint SVM paper, Fig. 1)",
		Paper: joint.Paper,
		Settings: []experiment.Setting{
			{Name: "dataset", Kind: experiment.Text, Default: "digits-tags", Help: "a shipped dataset with tags, or the generator multilabel2d"},
			{Name: "n", Kind: experiment.Int, Default: "2000", Positive: true, Help: "rows drawn from a generator"},
			{Name: "gamma", Kind: experiment.Float, Positive: true, Help: "one input RBF γ (standardised features) instead of the grid around 1/d"},
			{Name: "test", Kind: experiment.Float, Default: "0.1", Min: 0, Max: 1, Open: true, Help: "test fraction"},
			{Name: "val", Kind: experiment.Float, Default: strconv.FormatFloat(1.0/9, 'g', -1, 64), Min: 0, Max: 1, Open: true, Help: "validation fraction of the training rows"},
			{Name: "osigma2", Kind: experiment.Float, Positive: true, Help: "one output Gaussian σ² instead of the grid"},
			{Name: "oreg", Kind: experiment.Float, Default: "0.1", Help: "output covariance shrinkage λ"},
			{Name: "maxrows", Kind: experiment.Int, Default: "0", Quick: "600", Min: 0, Max: 1e9, Help: "subsample to at most this many rows (0: all)"},
		},
		Plan:      plan,
		RunTask:   runTask,
		Aggregate: aggregate,
	})
}

// hyper is one point of the validation grid.
type hyper struct {
	C      float64 `json:"C"`
	Gamma  float64 `json:"gamma"`
	Sigma2 float64 `json:"osigma2,omitempty"`
}

func (h hyper) String() string {
	s := fmt.Sprintf("C=%g γ=%.3g", h.C, h.Gamma)
	if h.Sigma2 > 0 {
		s += fmt.Sprintf(" σ²=%g", h.Sigma2)
	}
	return s
}

// learner is one row of the comparison.
type learner struct {
	name   string
	paper  int  // row of paperFig1
	sigma2 bool // searches the output σ²
	fit    func(ctx context.Context, X, tags *mat.Dense, h hyper, oreg float64, opt model.Options) (model.Fitted, error)
}

func rbf(g float64) kernel.Kernel { return kernel.Kernel{Kind: kernel.RBF, Gamma: g} }

var learners = []learner{
	{"Independent SVMs", 0, false, func(ctx context.Context, X, tags *mat.Dense, h hyper, _ float64, opt model.Options) (model.Fitted, error) {
		return joint.TrainIndep(ctx, X, tags, nil, joint.IndepParams{Kernel: rbf(h.Gamma), C: h.C}, opt)
	}},
	{"Joint SVM (Gaussian)", 1, true, func(ctx context.Context, X, tags *mat.Dense, h hyper, oreg float64, opt model.Options) (model.Fitted, error) {
		return joint.Train(ctx, X, tags, nil, joint.Params{Kernel: rbf(h.Gamma), C: h.C, Output: joint.OutputParams{Kind: joint.OutGaussian, Sigma2: h.Sigma2, Reg: oreg}}, opt)
	}},
	{"Joint SVM (Polynomial)", 2, false, func(ctx context.Context, X, tags *mat.Dense, h hyper, _ float64, opt model.Options) (model.Fitted, error) {
		return joint.Train(ctx, X, tags, nil, joint.Params{Kernel: rbf(h.Gamma), C: h.C, Output: joint.OutputParams{Kind: joint.OutPoly, Degree: 3, Coef0: 1}}, opt)
	}},
}

// grids are the searched values.
type grids struct {
	C, Gammas, Sigma2 []float64
	Oreg              float64
}

func gridsOf(env *experiment.Env, d int) grids {
	g := grids{C: []float64{0.01, 0.1, 1, 10, 100}, Sigma2: []float64{0.5, 2, 8}, Oreg: env.Float("oreg")}
	gammaMul := []float64{0.3, 1, 3}
	if env.Config.Quick {
		g.C, gammaMul, g.Sigma2 = []float64{0.1, 1, 10}, []float64{1}, []float64{0.5, 2}
	}
	for _, m := range gammaMul {
		g.Gammas = append(g.Gammas, m/float64(d))
	}
	if env.Has("gamma") {
		g.Gammas = []float64{env.Float("gamma")}
	}
	if env.Has("osigma2") {
		g.Sigma2 = []float64{env.Float("osigma2")}
	}
	return g
}

// points is learner L's validation grid: γ slowest, then σ², then C.
func (g grids) points(L learner) []hyper {
	var hs []hyper
	sg := []float64{0}
	if L.sigma2 {
		sg = g.Sigma2
	}
	for _, gm := range g.Gammas {
		for _, s2 := range sg {
			for _, C := range g.C {
				hs = append(hs, hyper{C: C, Gamma: gm, Sigma2: s2})
			}
		}
	}
	return hs
}

// split is the run's data: standardised fit / validation rows (for the
// search) and training / test rows (for the final fits), the kept tags.
type split struct {
	ds                  *data.Dataset
	rows                int
	trainRows, valRows  int
	testRows            int
	keep                []int
	dropped             []string
	Xfit, Yfit          *mat.Dense
	Xval, Yval          *mat.Dense
	Xtr, Ytr            *mat.Dense
	Xte, Yte            *mat.Dense
	truthVal, truthTest [][]bool
}

// load draws the split once per run (Config.Seed).
func load(env *experiment.Env) (*split, error) {
	return experiment.Memo(env, "split", func() (*split, error) { return makeSplit(env) })
}

func makeSplit(env *experiment.Env) (*split, error) {
	name := env.Text("dataset")
	var ds *data.Dataset
	var err error
	if _, isGen := data.GeneratorByName(name); isGen {
		if ds, err = data.GenerateByName(name, env.Int("n"), 0.1, env.Config.Seed+1); err != nil {
			return nil, err
		}
	} else if ds, err = env.Load(name); err != nil {
		return nil, err
	}
	if ds.Tags == nil {
		return nil, fmt.Errorf("jointsvm experiment: dataset %q has no tags", name)
	}
	// seeded shuffle, optional subsample, then test / validation / fit rows
	perm := data.NewRand(env.Config.Seed).Perm(ds.Rows())
	if m := env.Int("maxrows"); m > 0 && m < len(perm) {
		perm = perm[:m]
	}
	nTest := int(math.Round(env.Float("test") * float64(len(perm))))
	nVal := int(math.Round(env.Float("val") * float64(len(perm)-nTest)))
	if nTest < 1 || nVal < 1 || len(perm)-nTest-nVal < 2 {
		return nil, fmt.Errorf("jointsvm experiment: %d rows are too few to split", len(perm))
	}
	testRows, trainRows := perm[:nTest], perm[nTest:]
	valRows, fitRows := trainRows[:nVal], trainRows[nVal:]
	s := &split{ds: ds, rows: len(perm), trainRows: len(trainRows), valRows: nVal, testRows: nTest}
	// keep the tags that are neither never nor always on in the fit rows
	// (else a per-tag SVM, and the joint SVM, has nothing to learn)
	_, T := ds.Tags.Dims()
	for j := 0; j < T; j++ {
		on := 0
		for _, i := range fitRows {
			if ds.Tags.At(i, j) > 0.5 {
				on++
			}
		}
		if on == 0 || on == len(fitRows) {
			s.dropped = append(s.dropped, tagName(ds, j))
			continue
		}
		s.keep = append(s.keep, j)
	}
	if len(s.keep) == 0 {
		return nil, fmt.Errorf("jointsvm experiment: no tag varies in the training split")
	}
	pick := func(rows []int) (*mat.Dense, *mat.Dense) {
		X := mat.NewDense(len(rows), ds.Dim(), nil)
		Y := mat.NewDense(len(rows), len(s.keep), nil)
		for k, i := range rows {
			X.SetRow(k, ds.X.RawRowView(i))
			for c, j := range s.keep {
				Y.Set(k, c, ds.Tags.At(i, j))
			}
		}
		return X, Y
	}
	s.Xfit, s.Yfit = pick(fitRows)
	s.Xval, s.Yval = pick(valRows)
	s.Xtr, s.Ytr = pick(trainRows)
	s.Xte, s.Yte = pick(testRows)
	if s.Xfit, s.Xval, err = standardise(s.Xfit, s.Yfit, s.Xval); err != nil {
		return nil, err
	}
	if s.Xtr, s.Xte, err = standardise(s.Xtr, s.Ytr, s.Xte); err != nil {
		return nil, err
	}
	s.truthVal, s.truthTest = metrics.TagsOf(s.Yval), metrics.TagsOf(s.Yte)
	return s, nil
}

// standardise scales train and other with the statistics of train (the
// rows the model is fitted on).
func standardise(train, tags, other *mat.Dense) (*mat.Dense, *mat.Dense, error) {
	sc, err := data.FitScaler(&data.Dataset{X: train, Tags: tags}, data.ScaleStandard)
	if err != nil {
		return nil, nil, err
	}
	tr, err := sc.Transform(&data.Dataset{X: train})
	if err != nil {
		return nil, nil, err
	}
	o, err := sc.Transform(&data.Dataset{X: other})
	if err != nil {
		return nil, nil, err
	}
	return tr.X, o.X, nil
}

// spec is a task's descriptor: learner L at point H, a validation fit or
// (Final) the final fit.
type spec struct {
	Learner int   `json:"learner"`
	H       hyper `json:"hyper"`
	Final   bool  `json:"final,omitempty"`
}

// valOut is a validation fit's macro F1.
type valOut struct {
	F1 float64 `json:"f1"`
}

// finalOut is a final fit's test scores and report.
type finalOut struct {
	Scores     *metrics.MultiLabel `json:"scores"`
	Converged  bool                `json:"converged"`
	Iterations int                 `json:"iterations"`
	NSupport   int                 `json:"n_support"`
	Extras     map[string]float64  `json:"extras,omitempty"`
	Warnings   []string            `json:"warnings,omitempty"`
}

func valID(l, k int) string { return fmt.Sprintf("val/%d/%d", l, k) }
func finalID(l int) string  { return fmt.Sprintf("final/%d", l) }

func plan(env *experiment.Env, done []experiment.Done) (experiment.Stage, error) {
	s, err := load(env)
	if err != nil {
		return experiment.Stage{}, err
	}
	g := gridsOf(env, s.ds.Dim())
	var st experiment.Stage
	add := func(id string, sp spec) error {
		t, err := experiment.NewTask(id, env.Config.Seed, sp)
		st.Tasks = append(st.Tasks, t)
		return err
	}
	idx := experiment.Index(done)
	for l, L := range learners {
		if _, ok := idx[finalID(l)]; ok {
			continue
		}
		hs := g.points(L)
		searched := true
		for k, h := range hs {
			if _, ok := idx[valID(l, k)]; !ok {
				searched = false
				if err := add(valID(l, k), spec{Learner: l, H: h}); err != nil {
					return st, err
				}
			}
		}
		if !searched {
			st.Later++ // the final fit
			continue
		}
		best, err := choose(idx, l, hs)
		if err != nil {
			return st, err
		}
		if err := add(finalID(l), spec{Learner: l, H: best, Final: true}); err != nil {
			return st, err
		}
	}
	return st, nil
}

// choose is the point with the highest validation F1 (the first on ties;
// the first point when none scores).
func choose(idx map[string]*experiment.Done, l int, hs []hyper) (hyper, error) {
	cands := make([]experiment.Candidate, len(hs))
	for k := range hs {
		o, _, err := experiment.Output[valOut](idx, valID(l, k))
		if err != nil {
			return hyper{}, err
		}
		cands[k] = experiment.Candidate{Score: o.F1, OK: true}
	}
	best := experiment.Best(cands, false)
	if best < 0 {
		best = 0
	}
	return hs[best], nil
}

func runTask(ctx context.Context, tc *experiment.TaskContext) (any, error) {
	sp, err := experiment.Decode[spec](tc.Task.Spec)
	if err != nil {
		return nil, err
	}
	if sp.Learner < 0 || sp.Learner >= len(learners) {
		return nil, fmt.Errorf("no learner %d", sp.Learner)
	}
	s, err := load(tc.Env)
	if err != nil {
		return nil, err
	}
	L := learners[sp.Learner]
	oreg := tc.Env.Float("oreg")
	opt := tc.Options(tc.Task.Seed)
	if !sp.Final {
		f, err := L.fit(ctx, s.Xfit, s.Yfit, sp.H, oreg, opt)
		if err != nil {
			return nil, fmt.Errorf("%s, %v: %w", L.name, sp.H, err)
		}
		p, err := f.Predict(&data.Dataset{X: s.Xval})
		if err != nil {
			return nil, err
		}
		m, err := metrics.Tags(s.truthVal, p.Tags)
		if err != nil {
			return nil, err
		}
		return valOut{F1: m.MacroPRF1}, nil
	}
	var f model.Fitted
	err = tc.Time("train", func() error {
		var err error
		f, err = L.fit(ctx, s.Xtr, s.Ytr, sp.H, oreg, opt)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s, %v: %w", L.name, sp.H, err)
	}
	var p *model.Prediction
	if err := tc.Time("test", func() error {
		var err error
		p, err = f.Predict(&data.Dataset{X: s.Xte})
		return err
	}); err != nil {
		return nil, err
	}
	m, err := metrics.Tags(s.truthTest, p.Tags)
	if err != nil {
		return nil, err
	}
	rep := f.Report()
	return finalOut{Scores: m, Converged: rep.Converged, Iterations: rep.Iterations, NSupport: rep.NSupport, Extras: rep.Extras, Warnings: rep.Warnings}, nil
}

func aggregate(env *experiment.Env, done []experiment.Done) (*experiment.Result, error) {
	s, err := load(env)
	if err != nil {
		return nil, err
	}
	g := gridsOf(env, s.ds.Dim())
	idx := experiment.Index(done)
	ours := &experiment.Table{
		Title: fmt.Sprintf("Ours: %s (%d train incl. %d validation, %d test rows, %d tags, %d features)",
			s.ds.Name, s.trainRows, s.valRows, s.testRows, len(s.keep), s.ds.Dim()),
		Columns: []string{"Method", "Training time (s)", "Testing time (s)", "Precision", "Recall", "F1",
			"Chosen on validation", "Micro F1", "Macro F1 (mean of per-tag)", "Hamming loss", "Subset accuracy", "Support vectors"},
	}
	beside := &experiment.Table{
		Title:   "Fig. 1 side by side: the joint SVM paper (Corel5K) and ours",
		Columns: []string{"Method", "Source", "Training time (s)", "Testing time (s)", "Precision", "Recall", "F1"},
	}
	raw := map[string]any{}
	times := map[string]float64{}
	for l, L := range learners {
		hs := g.points(L)
		valF := map[string]float64{}
		for k, h := range hs {
			o, _, err := experiment.Output[valOut](idx, valID(l, k))
			if err != nil {
				return nil, err
			}
			valF[h.String()] = o.F1
		}
		fin, d, err := experiment.Output[finalOut](idx, finalID(l))
		if err != nil {
			return nil, err
		}
		sp, err := experiment.Decode[spec](d.Spec)
		if err != nil {
			return nil, err
		}
		best, sc := sp.H, fin.Scores
		trainSec, testSec := d.Timing["train"], d.Timing["test"]
		ours.Rows = append(ours.Rows, []string{L.name, f4(trainSec), f4(testSec), f4(sc.MacroP), f4(sc.MacroR), f4(sc.MacroPRF1),
			best.String(), f4(sc.Micro.F1), f4(sc.MacroF1), f4(sc.Hamming), f4(sc.SubsetAccuracy),
			strconv.Itoa(fin.NSupport)})
		pr := paperFig1[L.paper]
		beside.Rows = append(beside.Rows, []string{L.name, "the joint SVM paper (Corel5K)", pr[1], pr[2], pr[3], pr[4], pr[5]},
			[]string{L.name, "ours (" + s.ds.Name + ")", f4(trainSec), f4(testSec), f4(sc.MacroP), f4(sc.MacroR), f4(sc.MacroPRF1)})
		times[L.name] = trainSec
		raw[L.name] = map[string]any{"C": best.C, "gamma": best.Gamma, "osigma2": best.Sigma2, "validation_f1": valF, "train_seconds": trainSec, "test_seconds": testSec,
			"scores": sc, "converged": fin.Converged, "iterations": fin.Iterations, "extras": fin.Extras, "warnings": fin.Warnings}
	}
	pr := paperFig1[3]
	beside.Rows = append(beside.Rows, []string{pr[0], "the joint SVM paper, quoting [10]", pr[1], pr[2], pr[3], pr[4], pr[5]})
	clock := "CPU"
	if !experiment.CPUClock() {
		clock = "wall-clock"
	}
	ours.Notes = append(ours.Notes,
		"Precision, recall: macro (per-tag) averages; F1 = 2PR/(P+R) of those, the convention of the joint SVM paper's Fig. 1. "+
			fmt.Sprintf("Chosen by validation F1: C from %v, input RBF γ from %.3g (standardised features), output Gaussian σ² from %v "+
				"(λ = %g); output polynomial (⟨y,y'⟩/T + 1)³; prediction by eq (13). Training time is the final fit with the chosen values (%s seconds).",
				g.C, g.Gammas, g.Sigma2, g.Oreg, clock),
		fmt.Sprintf("Training-time ratio independent / joint: %.2f (Gaussian), %.2f (polynomial); T = %d tags.",
			times["Independent SVMs"]/times["Joint SVM (Gaussian)"], times["Independent SVMs"]/times["Joint SVM (Polynomial)"], len(s.keep)))
	if len(s.dropped) > 0 {
		ours.Notes = append(ours.Notes, fmt.Sprintf("Dropped tags constant in the training split: %v.", s.dropped))
	}
	beside.Notes = append(beside.Notes, "Paper numbers copied from the joint SVM paper (Xiong, Szedmak & Piater), Fig. 1: Corel5K, "+
		"4500 training / 500 test images, 260 tags, RgbV3H1 feature, Python on an Intel Core i7. Times are not comparable across "+
		"machines and datasets; the ratios within each source are.")
	return &experiment.Result{
		Name:  "jointsvm",
		Paper: joint.Paper,
		Config: map[string]any{"dataset": s.ds.Name, "quick": env.Config.Quick, "seed": env.Config.Seed, "grid_C": g.C, "grid_gamma": g.Gammas,
			"grid_osigma2": g.Sigma2, "oreg": g.Oreg, "rows": s.rows, "test": s.testRows, "validation": s.valRows, "tags": len(s.keep)},
		Tables:      []experiment.Table{*ours, *beside},
		PaperTables: []experiment.Table{{Title: "The joint SVM paper, Fig. 1 (Corel5K)", Columns: []string{"Method", "Training time (s)", "Testing time (s)", "Precision", "Recall", "F1"}, Rows: paperFig1}},
		Raw:         raw,
	}, nil
}

func tagName(ds *data.Dataset, j int) string {
	if j < len(ds.TagNames) {
		return ds.TagNames[j]
	}
	return strconv.Itoa(j + 1)
}

func f4(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
