// Command lupi is the native twin of LUPI Lab: it fits, saves and applies the
// same registered models as the browser app, on files too big for a tab, and
// runs the papers' experiments reproducibly. Every command prints JSON (or
// markdown for experiments) on stdout; notices (what the CLI chose for the
// user, progress) go to stderr; on error it prints one line on stderr and
// exits with a non-zero status: 1 for a failed command (bad data, a bad
// parameter value, a fit refused by the memory guard), 2 for bad usage, 3
// for an internal error (a bug: an unexpected panic, reported with what was
// being done).
//
//	lupi models
//	    JSON list of model specs: id, name, paper, equations, task, family,
//	    parameters with defaults, ranges and aliases.
//	lupi fit -model ID -train FILE [-test FILE] [-set name=value]... [-seed N] [-o model.json]
//	         [-scale[=standard|minmax|none]] [-tags SPEC] [-max-memory SIZE] [-progress]
//	         [-train-z FILE] [-test-z FILE] [-twoview] [-train-metrics=false]
//	    Fits a model and prints one JSON object: model, params, n_train,
//	    n_test, train_seconds, converged, iterations, objective (the dual
//	    objective in minimisation form, as LIBSVM's obj), n_support, rho and
//	    bias where defined, train_metrics and test_metrics (accuracy or the
//	    multi-label scores, per-view accuracies of two-view models, plus the
//	    model's extras such as log_marginal_likelihood), estimate, notices,
//	    warnings. -o saves the fitted model (with its -scale scaling).
//	lupi fit -model ID -help
//	    Every flag, and the model's parameters with defaults, ranges and aliases.
//	lupi predict -model-file model.json -data FILE [-z FILE] [-twoview] [-tags SPEC]
//	    Prints decision values, labels, per-class scores, probabilities or
//	    tags as JSON (and metrics when FILE has labels; FILE may have none).
//	lupi experiment NAME [-quick] [-seed N] [-repeats N] [-data DIR] [-set k=v]... [-j N] [-timing=false]
//	         [-json FILE] [-md FILE] [-tasks FILE] [-project FILE]
//	    Runs a paper's experiment, -j tasks at once (default: every core);
//	    prints its markdown tables (identical for every -j but for timings).
//	    -project FILE runs nothing: it replays the task times of a -tasks
//	    FILE on -j workers and prints the projected wall time (JSON).
//	lupi tune -model ID -train FILE -grid name=v1,v2,… [-grid …] [-folds K] [-j N] [-seed N]
//	          [-scale standard|minmax|none] [-set name=value]...
//	    k-fold cross-validation over the grid; prints each cell's mean ± sd
//	    and the best cell as JSON (identical for every -j).
//	lupi experiment list
//	    JSON list of the registered experiments.
//
// FILE is any format lupilab/models/data reads: CSV (columns y/label = class,
// x_* = main, z_* = second block, tag_* = tags, or the tags named by
// -tags), LIBSVM / SVMlight (Z from a second LIBSVM file given by -train-z /
// -test-z / -z) or ARFF (Mulan / MEKA files with -tags).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"gonum.org/v1/gonum/mat"

	_ "lupilab/models/all" // registers every model and experiment
	"lupilab/models/data"
	"lupilab/models/model"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `usage:
  lupi models
  lupi fit -model ID -train FILE [-test FILE] [-set name=value]... [-seed N] [-o model.json]
           [-scale] [-tags SPEC] [-max-memory SIZE] [-progress]   (lupi fit -model ID -help: every flag and parameter)
  lupi predict -model-file model.json -data FILE [-tags SPEC]
  lupi experiment NAME [-quick] [-seed N] [-repeats N] [-data DIR] [-set k=v]... [-j N] [-timing=false] [-json FILE] [-md FILE] [-tasks FILE] [-project FILE]
  lupi experiment list
  lupi tune -model ID -train FILE -grid name=v1,v2,... [-grid ...] [-folds K] [-j N] [-seed N] [-scale standard|minmax|none] [-set name=value]...
`

// usageError marks errors of the command line itself (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// Exit statuses.
const (
	exitFailed   = 1 // the command failed: bad data, a bad parameter value, a refused fit
	exitUsage    = 2 // bad usage: unknown command or flag, a missing required flag
	exitInternal = 3 // an internal error: a bug (an unexpected panic), never bad input
)

// env is what a command writes to: results on stdout, notices on stderr,
// and what it is doing (for the panic boundary's message).
type env struct {
	stdout, stderr io.Writer
	doing          string
}

// notef writes one notice line to stderr: something the CLI chose or
// dropped for the user, or progress.
func (e *env) notef(format string, args ...any) {
	fmt.Fprintf(e.stderr, "lupi: "+format+"\n", args...)
}

// run is the whole program; it returns the exit status. Every command runs
// inside the panic boundary (model.GuardWith): a bug ends the command with
// "internal error while <what it was doing>: …" and status 3.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	e := &env{stdout: stdout, stderr: stderr, doing: "starting"}
	if len(args) > 0 {
		e.doing = "running lupi " + args[0]
	}
	err := model.GuardWith(func() string { return e.doing }, func() error { return dispatch(ctx, args, e) })
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		return 0
	}
	msg := strings.Join(strings.Fields(err.Error()), " ") // one line
	fmt.Fprintln(stderr, "lupi: "+msg)
	var ue usageError
	switch {
	case errors.As(err, &ue):
		return exitUsage
	case model.IsInternal(err):
		return exitInternal
	}
	return exitFailed
}

func dispatch(ctx context.Context, args []string, e *env) error {
	stdout := e.stdout
	if len(args) == 0 {
		return usageError{"no command (models, fit, predict, experiment, tune); see lupi help"}
	}
	switch args[0] {
	case "models":
		if len(args) > 1 {
			return usageError{"models takes no arguments"}
		}
		return writeJSON(stdout, model.All())
	case "fit":
		return cmdFit(ctx, args[1:], e)
	case "predict":
		return cmdPredict(args[1:], e)
	case "experiment":
		return cmdExperiment(ctx, args[1:], stdout)
	case "tune":
		return cmdTune(ctx, args[1:], stdout)
	case "help", "-h", "-help", "--help":
		return flag.ErrHelp
	}
	return usageError{fmt.Sprintf("unknown command %q (models, fit, predict, experiment, tune)", args[0])}
}

// writeJSON writes v as indented JSON. A non-finite number (which JSON
// cannot hold) is a clear error naming where it is, never encoding/json's
// "unsupported value: NaN".
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		var uv *json.UnsupportedValueError
		if errors.As(err, &uv) {
			return fmt.Errorf("the result holds a non-finite number (%s)%s: the parameters are numerically extreme for these data", uv.Str, nonFinitePath(v))
		}
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}

// setFlags collects repeated -set name=value.
type setFlags map[string]string

func (s setFlags) String() string { return "" }

func (s setFlags) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return fmt.Errorf("-set %q: want name=value", v)
	}
	s[k] = strings.TrimSpace(val)
	return nil
}

func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{fs.Name() + ": " + err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))}
	}
	return nil
}

// align makes ds comparable with the training set: class indices follow the
// training set's class names, and a LIBSVM file with fewer columns (its
// trailing features all zero) is padded to the training width.
func align(ds, train *data.Dataset, trainDim, trainZDim int, sparse bool) (*data.Dataset, error) {
	out := *ds
	pad := func(m *mat.Dense, d int, what string) (*mat.Dense, error) {
		if m == nil {
			return nil, nil
		}
		n, c := m.Dims()
		if c == d {
			return m, nil
		}
		if c > d || !sparse {
			return nil, fmt.Errorf("%s has %d columns, the training data had %d", what, c, d)
		}
		p := mat.NewDense(n, d, nil)
		p.Slice(0, n, 0, c).(*mat.Dense).Copy(m)
		return p, nil
	}
	var err error
	if out.X, err = pad(ds.X, trainDim, "the data"); err != nil {
		return nil, err
	}
	if trainZDim > 0 && ds.Z != nil {
		if out.Z, err = pad(ds.Z, trainZDim, "the second block"); err != nil {
			return nil, err
		}
	}
	if train != nil && ds.Y != nil && train.Classes != nil {
		idx := map[string]int{}
		for i, c := range train.Classes {
			idx[c] = i
		}
		out.Y = make([]int, len(ds.Y))
		for i, c := range ds.Y {
			j, ok := idx[ds.Classes[c]]
			if !ok {
				return nil, fmt.Errorf("class %q does not occur in the training data (classes: %s)", ds.Classes[c], strings.Join(train.Classes, ", "))
			}
			out.Y[i] = j
		}
		out.Classes = train.Classes
	}
	return &out, nil
}

// forPredict hides Z from models that may only use it while training.
func forPredict(spec *model.Spec, ds *data.Dataset) *data.Dataset { return spec.ForPredict(ds) }
