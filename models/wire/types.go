package wire

import "encoding/json"

// Requests and results of the jobs. Parameters are spec.Values-shaped maps
// (name → value as text); the UI validates them against package spec
// before sending, and the worker validates them again.

// DataRef names the data of a job so that any worker can rebuild it.
type DataRef struct {
	// Source is "gen:<generator>", "ds:<shipped dataset>" or "up:<file name>".
	Source string  `json:"source"`
	N      int     `json:"n,omitempty"`     // generators: samples
	Noise  float64 `json:"noise,omitempty"` // generators: noise
	Seed   int64   `json:"seed"`            // generators: data seed
	// CSV is an uploaded dataset in LUPI Lab's canonical CSV (what a Parse
	// result returns); the worker caches it by content.
	CSV string `json:"csv,omitempty"`
	// Edits are the user's changes to the points, applied in order.
	Edits []Edit `json:"edits,omitempty"`
}

// Edit is one change of the data made on the canvas.
type Edit struct {
	Op    string     `json:"op"`              // "add", "move", "erase", "hard" (set difficulty)
	Index int        `json:"i,omitempty"`     // the row (of the data after the previous edits)
	X     [2]float64 `json:"x,omitempty"`     // position (add, move)
	Class int        `json:"c,omitempty"`     // class (add)
	Value float64    `json:"value,omitempty"` // difficulty in [0, 1] (hard)
}

// Split says how the data is split and scaled (the same for every model of a
// comparison, every cell of a grid).
type Split struct {
	TrainFrac float64 `json:"train_frac"` // e.g. 0.7, stratified
	Seed      int64   `json:"seed"`       // split and model seed
	Scale     string  `json:"scale"`      // "standard", "minmax" or "none"; fitted on the training rows
}

// GridSpec asks for decision maps: side cells per axis; Preview > 0 asks for
// a coarse map of that side first.
type GridSpec struct {
	Side    int `json:"side"`
	Preview int `json:"preview,omitempty"`
}

// FitRequest trains a model and scores it.
type FitRequest struct {
	Data   DataRef           `json:"data"`
	Split  Split             `json:"split"`
	Model  string            `json:"model"`
	Params map[string]string `json:"params"`
	// AdaptWidths sets kernel widths left at their default to the data's
	// default (γ = 1/d, as LIBSVM) and says so in FitResult.Notes.
	AdaptWidths bool `json:"adapt_widths,omitempty"`
	// Keep keeps the fitted model in the worker under FitResult.Handle for
	// later Grid requests.
	Keep bool `json:"keep,omitempty"`
	// Grid asks for the decision maps, sent as Part messages (GridResult).
	Grid *GridSpec `json:"grid,omitempty"`
	// Budget is the largest memory in bytes the fit may plan to use (0: the
	// worker's default).
	Budget int64 `json:"budget,omitempty"`
	// Watch asks for snapshots while the model trains (models that support
	// it): Part messages with a Snapshot and, with Grid, its map at
	// WatchSide cells a side, paced for people to see.
	Watch bool `json:"watch,omitempty"`
	// WatchSpeed is how many times faster than that pace the snapshots
	// come (0: 1); a Pace message changes it while the fit runs.
	WatchSpeed float64 `json:"watch_speed,omitempty"`
}

// Pace changes a running watched fit's pace (a KindPace message with the
// fit's id): Speed as FitRequest.WatchSpeed, or Skip: no more snapshots,
// the fit finishes as fast as an unwatched one (with the same result).
type Pace struct {
	Speed float64 `json:"speed,omitempty"`
	Skip  bool    `json:"skip,omitempty"`
}

// WatchSide is the side of a snapshot's map (cells): coarse enough to be
// computed between two frames.
const WatchSide = 64

// Snapshot is a fit in progress (see model.Snapshot).
type Snapshot struct {
	Iter     int     `json:"iter"`
	Stage    string  `json:"stage,omitempty"`
	Quantity string  `json:"quantity"`
	Value    float64 `json:"value"`
	Log      bool    `json:"log,omitempty"`
	// Seconds is the fit's time when it was taken (without the time
	// spent on snapshots).
	Seconds float64 `json:"seconds"`
	// Speed is the pace it was sent at (FitRequest.WatchSpeed).
	Speed float64 `json:"speed,omitempty"`
}

// Note is a notice about what the worker chose for the user.
type Note struct {
	Param string `json:"param,omitempty"`
	Text  string `json:"text"`
}

// FitResult is what the page shows after a fit (or an import).
type FitResult struct {
	Model  string            `json:"model"`
	Params map[string]string `json:"params"` // as used
	Notes  []Note            `json:"notes,omitempty"`
	// Imported is set when the model came from a file, not a fit.
	Imported bool     `json:"imported,omitempty"`
	Data     DataInfo `json:"data"`
	Report   Report   `json:"report"`
	Scores   Scores   `json:"scores"`
	Plot     PlotData `json:"plot"`
	Timing   Timing   `json:"timing"`
	Handle   string   `json:"handle,omitempty"` // the kept model's handle
	Saved    string   `json:"saved,omitempty"`  // the model as a saved-model file (JSON)
	// SavedBin is Saved in the message's binary parts (see pack.go: Decode
	// moves it back into Saved).
	SavedBin *Blob    `json:"saved_bin,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// Timing of a job, in seconds.
type Timing struct {
	Fit     float64 `json:"fit"`      // training, without the pauses for progress and cancel checks
	FitWall float64 `json:"fit_wall"` // training, wall clock
	Predict float64 `json:"predict"`  // scoring the training and test rows
}

// DataInfo describes the data a result was computed on.
type DataInfo struct {
	Name      string   `json:"name"`
	Rows      int      `json:"rows"`
	NTrain    int      `json:"n_train"`
	NTest     int      `json:"n_test"`
	Dim       int      `json:"dim"`
	ZDim      int      `json:"zdim"`
	Classes   []string `json:"classes,omitempty"`
	Tags      []string `json:"tags,omitempty"`
	Features  []string `json:"features,omitempty"`
	ZFeatures []string `json:"zfeatures,omitempty"`
}

// Scores are the metrics of a result.
type Scores struct {
	TrainAcc  float64    `json:"train_acc"`
	TestAcc   float64    `json:"test_acc"`
	Confusion [][]int    `json:"confusion,omitempty"` // test: [true][predicted]
	TrainTags *TagScores `json:"train_tags,omitempty"`
	TestTags  *TagScores `json:"test_tags,omitempty"`
	// Views holds the per-view test and train accuracies of two-view models
	// ("A", "B"), from their per-view decisions.
	Views map[string][2]float64 `json:"views,omitempty"`
}

// PRF is a precision / recall / F1 triple with its counts.
type PRF struct {
	TP        int     `json:"tp"`
	FP        int     `json:"fp"`
	FN        int     `json:"fn"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

// TagScores are multi-label scores (see models/metrics.MultiLabel, whose
// JSON this decodes).
type TagScores struct {
	N              int     `json:"n"`
	Tags           int     `json:"tags"`
	PerTag         []PRF   `json:"per_tag"`
	Micro          PRF     `json:"micro"`
	MacroP         float64 `json:"macro_precision"`
	MacroR         float64 `json:"macro_recall"`
	MacroF1        float64 `json:"macro_f1"`
	MacroPRF1      float64 `json:"macro_pr_f1"`
	Hamming        float64 `json:"hamming_loss"`
	SubsetAccuracy float64 `json:"subset_accuracy"`
}

// Report describes a fit (models/model.Report, whose JSON this decodes).
type Report struct {
	Model        string               `json:"model"`
	Params       map[string]string    `json:"params"`
	NTrain       int                  `json:"n_train"`
	TrainSeconds float64              `json:"train_seconds"`
	Converged    bool                 `json:"converged"`
	Iterations   int                  `json:"iterations"`
	Objective    float64              `json:"objective"`
	NSupport     int                  `json:"n_support"`
	Rho          *float64             `json:"rho,omitempty"`
	Support      []int                `json:"support,omitempty"`
	Extras       map[string]float64   `json:"extras,omitempty"`
	Diagnostics  map[string][]float64 `json:"diagnostics,omitempty"`
	Warnings     []string             `json:"warnings,omitempty"`
	Sub          []*Report            `json:"sub,omitempty"`
	// DiagnosticsBin holds Diagnostics in the message's binary parts (see
	// pack.go: Decode moves them back).
	DiagnosticsBin map[string]Blob `json:"diagnostics_bin,omitempty"`
}

// PlotData is what the plots draw besides the maps: the points in plot
// coordinates, with their classes, predictions and decisions.
type PlotData struct {
	// Projected is set when the data has more than two features: the points
	// are on the first two principal components of the training rows, which
	// explain PCAVar of the variance.
	Projected bool       `json:"projected,omitempty"`
	PCAVar    [2]float64 `json:"pca_var,omitempty"`
	// Axes name the plot's two axes; AxesB view B's.
	Axes  [2]string `json:"axes"`
	AxesB [2]string `json:"axes_b,omitempty"`
	// Frame is the data window [xmin, xmax, ymin, ymax] that frames the bulk
	// of the points; points outside are drawn clipped at its edge. Points and
	// frames are in the data's own units (projected data: principal
	// components of the scaled training rows).
	Frame  [4]float64 `json:"frame"`
	FrameB [4]float64 `json:"frame_b,omitempty"`
	Train  Points     `json:"train"`
	Test   Points     `json:"test"`
	// TrainB and TestB are the points in view B (two-view data whose view
	// B has two features), in the same row order.
	TrainB *Points `json:"train_b,omitempty"`
	TestB  *Points `json:"test_b,omitempty"`
	// Maps says which maps the model has on this data (empty: none, e.g.
	// projected data): "A" (the main plane) and "B" (view B's plane).
	Maps []string `json:"maps,omitempty"`
}

// Points are rows drawn on a plot.
type Points struct {
	X []float64 `json:"x"`
	Y []float64 `json:"y"`
	// Row is each point's row in the data (for generated data with edits,
	// the row's stable id: the edits refer to rows by it).
	Row   []int `json:"row,omitempty"`
	Class []int `json:"class,omitempty"` // true class (nil for tag data)
	Pred  []int `json:"pred,omitempty"`  // predicted class
	// Tags and PredTags hold each row's tags as bit masks (tag t is bit t).
	Tags     []uint64  `json:"tags,omitempty"`
	PredTags []uint64  `json:"pred_tags,omitempty"`
	Decision []float64 `json:"decision,omitempty"` // the model's decision value (binary), or the winning score
	// Views holds the per-view decisions of two-view models ("A", "B").
	Views map[string][]float64 `json:"views,omitempty"`
	// Prob holds P(class 1) for binary probabilistic models.
	Prob []float64 `json:"prob,omitempty"`
	// Difficulty is what LUPI 2-D's privileged noise level says of each
	// point, from 0 (easy) to 1 (hard).
	Difficulty []float64 `json:"difficulty,omitempty"`
	// Bin holds the arrays above in the message's binary parts, by field
	// name ("x", "row", "decision", "views:A", …; see pack.go: Decode moves
	// them back).
	Bin map[string]Blob `json:"bin,omitempty"`
}

// GridRequest asks for maps of a kept model over a window.
type GridRequest struct {
	Handle string     `json:"handle"`
	Saved  string     `json:"saved,omitempty"` // the model file, used when the worker no longer holds Handle
	Data   *DataRef   `json:"data,omitempty"`  // with Saved: the data (and split) the model was fitted on
	Split  Split      `json:"split"`
	View   string     `json:"view,omitempty"` // "" or "A": the main plane; "B": view B's
	Frame  [4]float64 `json:"frame"`          // [xmin, xmax, ymin, ymax]
	Side   int        `json:"side"`
}

// GridResult is a map of a model over a window: one or more layers of W×H
// values, row 0 at the top (ymax), with their iso-lines.
type GridResult struct {
	View    string     `json:"view,omitempty"`
	Frame   [4]float64 `json:"frame"`
	W       int        `json:"w"`
	H       int        `json:"h"`
	Preview bool       `json:"preview,omitempty"` // a coarse map; a finer one follows
	Layers  []Layer    `json:"layers"`
	Seconds float64    `json:"seconds"` // time to compute the map
}

// Layer kinds.
const (
	LayerDecision = "decision" // signed decision value: boundary 0, margins ±1
	LayerProb     = "prob"     // probability of the positive class: boundary 0.5
	LayerClass    = "class"    // predicted class index (multi-class)
	LayerMean     = "mean"     // a GP's latent mean
	LayerVar      = "var"      // a GP's predictive variance
	LayerPlane    = "plane"    // a twin SVM's proximal surface (signed distance)
	LayerTag      = "tag"      // a multi-label model's score for one tag
	LayerScore    = "score"    // a signed score whose 0 level is the boundary (twin SVMs, multi-class winners)
	LayerEntropy  = "entropy"  // a GP's predictive entropy in bits
	// LayerMargin is a multi-class map's margin of one class ("margin:<c>"):
	// positive exactly where class c is predicted, its 0 level the border
	// of c's region (which the "class" layer's "boundary" iso-line traces).
	LayerMargin = "margin"
)

// HasSpan says whether a layer of this kind carries Span: the signed
// layers coloured on a symmetric scale (decision, mean, plane, score);
// probabilities, variances, entropies, classes and tags have fixed or
// min–max scales.
func HasSpan(kind string) bool {
	switch kind {
	case LayerDecision, LayerMean, LayerPlane, LayerScore:
		return true
	}
	return false
}

// Layer is one quantity over the grid.
type Layer struct {
	Name   string  `json:"name"` // e.g. "decision", "plane:pos", "tag:2"
	Kind   string  `json:"kind"`
	Values Blob    `json:"values"` // float32, W·H
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	// Span is the half-width of the layer's symmetric colour scale
	// (viz.ColourSpan) when HasSpan(Kind), computed where the values are.
	Span     float64   `json:"span,omitempty"`
	Contours []Contour `json:"contours,omitempty"`
}

// Contour is the iso-line of a layer at one level, as paths in data
// coordinates (x0, y0, x1, y1, …).
type Contour struct {
	Level float64     `json:"level"`
	Style string      `json:"style"` // "boundary", "margin", "plane", "level" (a guide, e.g. p = 0.1)
	Paths [][]float64 `json:"paths"`
	// PathsBin holds Paths in the message's binary parts: every path's
	// coordinates one after the other (float32), PathLens long each (see
	// pack.go: Decode moves them back).
	PathsBin *Blob `json:"paths_bin,omitempty"`
	PathLens []int `json:"path_lens,omitempty"`
}

// ModelRequest names a kept model (and how to rebuild it).
type ModelRequest struct {
	Handle string  `json:"handle"`
	Saved  string  `json:"saved,omitempty"`
	Data   DataRef `json:"data"`
	Split  Split   `json:"split"`
}

// TextResult is a text file made for the user (e.g. results CSV).
type TextResult struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// ImportRequest scores a saved model on the current data's split.
type ImportRequest struct {
	Saved string    `json:"saved"`
	Data  DataRef   `json:"data"`
	Split Split     `json:"split"`
	Keep  bool      `json:"keep,omitempty"`
	Grid  *GridSpec `json:"grid,omitempty"`
}

// ForgetRequest drops kept models (all but Keep).
type ForgetRequest struct {
	Keep []string `json:"keep"`
}

// CVRequest scores one cell of a cross-validated parameter grid: the model
// with Params on Folds folds of the training rows of the split.
type CVRequest struct {
	Data   DataRef           `json:"data"`
	Split  Split             `json:"split"`
	Model  string            `json:"model"`
	Params map[string]string `json:"params"`
	Folds  int               `json:"folds"`
}

// CVResult is one cell's cross-validated score.
type CVResult struct {
	Mean   float64   `json:"mean"`
	SD     float64   `json:"sd"`
	Scores []float64 `json:"scores"` // per fold
	Metric string    `json:"metric"` // "accuracy" or "micro F1"
}

// ParseRequest parses an uploaded file (the bytes travel as Blob).
type ParseRequest struct {
	Name    string   `json:"name"`
	File    Blob     `json:"file"`
	ZName   string   `json:"zname,omitempty"`
	ZFile   Blob     `json:"zfile,omitempty"` // LIBSVM: the second block as its own file
	Roles   []string `json:"roles,omitempty"` // CSV: one role per column (empty: guess)
	TwoView bool     `json:"two_view,omitempty"`
	Labels  string   `json:"labels,omitempty"` // ARFF: label attributes
}

// ParseResult is a parsed upload, or why it cannot be used.
type ParseResult struct {
	Format  string     `json:"format"`           // "csv", "libsvm", "arff"
	Header  []string   `json:"header,omitempty"` // CSV columns
	Roles   []string   `json:"roles,omitempty"`  // CSV roles as used
	Preview [][]string `json:"preview,omitempty"`
	Errors  []string   `json:"errors,omitempty"` // empty when the data can be used
	Summary string     `json:"summary,omitempty"`
	Rows    int        `json:"rows"`
	Dim     int        `json:"dim"`
	ZDim    int        `json:"zdim"`
	Classes []string   `json:"classes,omitempty"`
	Tags    []string   `json:"tags,omitempty"`
	// CSV is the dataset in canonical CSV, for DataRef.CSV and local
	// storage (empty when there are errors).
	CSV string `json:"csv,omitempty"`
}

// Part is the body of a fit or import job's Part and Result messages: the
// fit's result first, then its maps (a preview, then the full map, per
// view); the Result holds the last of them.
type Part struct {
	Fit  *FitResult  `json:"fit,omitempty"`
	Grid *GridResult `json:"grid,omitempty"`
	// Snapshot is a watched fit in progress; Grid, when set beside it, is
	// the snapshot's map (not the result's).
	Snapshot *Snapshot `json:"snapshot,omitempty"`
}

// PointsRequest asks for the data's points laid out as a fit of Model would
// show them (its split and scaling; view B for two-view models), without
// fitting: the page shows the data before the first fit ends.
type PointsRequest struct {
	Data  DataRef `json:"data"`
	Split Split   `json:"split"`
	Model string  `json:"model"`
}

// ExpInfo names one of the papers' experiments.
type ExpInfo struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	Paper string `json:"paper"`
}

// ExpRequest runs an experiment (Quick: the browser-sized protocol).
type ExpRequest struct {
	Name  string `json:"name"`
	Quick bool   `json:"quick"`
	Seed  int64  `json:"seed"`
}

// ExpTable is one results table of an experiment.
type ExpTable struct {
	Title   string     `json:"title"`
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
	Notes   []string   `json:"notes,omitempty"`
}

// ExpResult is an experiment's tables, ours and the paper's.
type ExpResult struct {
	Name        string     `json:"name"`
	Paper       string     `json:"paper"`
	Tables      []ExpTable `json:"tables"`
	PaperTables []ExpTable `json:"paper_tables,omitempty"`
	Seconds     float64    `json:"seconds"`
}

// ExpPlanRequest asks for the next stage of an experiment's plan (or, with
// KindExpReduce, its tables), given every task finished so far. An
// experiment run fans out over the pool: the page asks for a stage, runs
// its tasks on every worker (each task carries its own seed, so the result
// does not depend on which worker runs it), and asks again.
type ExpPlanRequest struct {
	Name  string            `json:"name"`
	Quick bool              `json:"quick"`
	Seed  int64             `json:"seed"`
	Done  []json.RawMessage `json:"done,omitempty"`
}

// ExpStage is a stage of tasks (each a JSON task of models/experiment);
// empty when the plan is complete. Later estimates the tasks still to come.
type ExpStage struct {
	Tasks []json.RawMessage `json:"tasks"`
	Later int               `json:"later"`
}

// ExpTaskRequest runs one task of an experiment.
type ExpTaskRequest struct {
	Name  string          `json:"name"`
	Quick bool            `json:"quick"`
	Seed  int64           `json:"seed"`
	Task  json.RawMessage `json:"task"`
}
