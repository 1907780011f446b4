package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"lupilab/models/cputime"
	"lupilab/models/data"
	"lupilab/models/model"
)

// Experiment is a registered experiment: its settings, its plan of tasks,
// how one task runs and how the finished tasks make the Result (see the
// package documentation).
type Experiment struct {
	Name  string
	Title string
	Paper string
	// Settings declares Config.Args.
	Settings []Setting
	// Repeats is the number of repeats of the full protocol and of the
	// browser-sized one (Config.Repeats overrides it); {0, 0} for an
	// experiment without repeats, which then refuses Config.Repeats.
	Repeats [2]int
	// Plan returns the tasks that are ready given the finished tasks done
	// (none at first): every task whose inputs are all among done and that
	// is not itself in done, in a stable order. It is a function of done
	// (the tasks' outputs, not their order), and monotone: a task it returns
	// it returns again, with the same ID, seed and descriptor, given more
	// finished tasks, until that task is among them. RunPlan calls it
	// again while tasks are running, so it returns those too (callers skip
	// the IDs they have handed out); no task with nothing running ends the
	// plan. See the package documentation.
	Plan func(env *Env, done []Done) (Stage, error)
	// RunTask runs one task and returns its output, which must survive a
	// JSON round trip (no NaN or Inf: say a failure with a field of its
	// own). The returned error is fatal to the run (cancellation, a bug,
	// bad data); an expected failure of a fit belongs in the output.
	RunTask func(ctx context.Context, tc *TaskContext) (any, error)
	// Aggregate builds the Result from every finished task.
	Aggregate func(env *Env, done []Done) (*Result, error)
}

// Task is one independent, serialisable unit of work.
type Task struct {
	// ID is unique within a run and stable (it names the task's place in
	// the protocol, e.g. "wdbc/r2/svm/cell14").
	ID string `json:"id"`
	// Seed is the task's seed: it derives every random choice of the task
	// from it (the experiment documents how).
	Seed int64 `json:"seed"`
	// Spec is the experiment's descriptor of the task (JSON).
	Spec json.RawMessage `json:"spec"`
}

// NewTask builds a Task with spec serialised.
func NewTask(id string, seed int64, spec any) (Task, error) {
	b, err := json.Marshal(spec)
	if err != nil {
		return Task{}, fmt.Errorf("task %s: %w", id, err)
	}
	return Task{ID: id, Seed: seed, Spec: b}, nil
}

// Done is a finished task: its output, and apart from it the timings.
type Done struct {
	Task
	// Out is the task's output (JSON): a function of the settings, the
	// task and the data alone.
	Out json.RawMessage `json:"out"`
	// Timing holds the task's measured times in seconds (CPU where the
	// platform has a per-thread clock, wall clock otherwise; keys ending in
	// "_wall" are wall clock) and "task_wall", the whole task's wall time.
	// Empty under Config.NoTiming.
	Timing map[string]float64 `json:"timing,omitempty"`
	// Stage is the task's plan stage (0-based): 0 for the tasks Plan
	// returns given no finished task, k for those it returns once the tasks
	// of stages 0 … k−1 have finished — the depth of the task's inputs. It
	// does not depend on the order tasks ran in (Env.Ordered): RunPlan
	// starts a task as soon as its own inputs are known, not when its
	// stage's turn comes.
	Stage int `json:"stage"`
}

// Stage is what Plan returns: the tasks that are ready.
type Stage struct {
	Tasks []Task
	// Later estimates the tasks Plan will return once more tasks have
	// finished, beyond Tasks (progress only).
	Later int
}

// Decode decodes a task's descriptor or output into a T.
func Decode[T any](raw json.RawMessage) (T, error) {
	var v T
	err := json.Unmarshal(raw, &v)
	return v, err
}

// Index maps task IDs to finished tasks, for aggregation.
func Index(done []Done) map[string]*Done {
	m := make(map[string]*Done, len(done))
	for i := range done {
		m[done[i].ID] = &done[i]
	}
	return m
}

// Output decodes the output of the finished task id; an error when it is
// missing.
func Output[T any](idx map[string]*Done, id string) (T, *Done, error) {
	d, ok := idx[id]
	if !ok {
		var zero T
		return zero, nil, fmt.Errorf("task %s has not run", id)
	}
	v, err := Decode[T](d.Out)
	if err != nil {
		return v, d, fmt.Errorf("task %s: %w", id, err)
	}
	return v, d, nil
}

// Env is one run of an experiment: the experiment, its Config with the
// settings resolved, and a memo of intermediate results shared by the
// run's tasks. It is safe for concurrent use.
type Env struct {
	Exp     *Experiment
	Config  Config
	Repeats int
	set     map[string]string

	mu   sync.Mutex
	memo map[string]*memoEntry
	// ws is the experiment's workspace: its fits on the same data (the
	// grid points of a split, the models compared on it) share kernel rows
	// and Qλ through it.
	ws *model.Workspace

	progMu sync.Mutex // serialises Config.Progress
}

type memoEntry struct {
	once sync.Once
	v    any
	err  error
}

// NewEnv validates cfg's settings against e's and prepares a run.
func NewEnv(e *Experiment, cfg Config) (*Env, error) {
	set, err := resolveSettings(e.Name, e.Settings, cfg.Args, cfg.Quick)
	if err != nil {
		return nil, err
	}
	env := &Env{Exp: e, Config: cfg, set: set, memo: map[string]*memoEntry{}, ws: model.NewWorkspace()}
	switch {
	case e.Repeats == [2]int{}:
		if cfg.Repeats > 0 {
			return nil, fmt.Errorf("%s experiment has no repeats (one split)", e.Name)
		}
	case cfg.Repeats > 0:
		env.Repeats = cfg.Repeats
	case cfg.Quick:
		env.Repeats = e.Repeats[1]
	default:
		env.Repeats = e.Repeats[0]
	}
	return env, nil
}

// Lookup-and-prepare for a worker: NewEnvByName finds experiment name and
// prepares a run of it.
func NewEnvByName(name string, cfg Config) (*Env, error) {
	e, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	return NewEnv(e, cfg)
}

func (env *Env) setting(name string, kinds ...SettingKind) string {
	for _, s := range env.Exp.Settings {
		if s.Name == name {
			for _, k := range kinds {
				if s.Kind == k {
					return env.set[name]
				}
			}
			panic(fmt.Sprintf("experiment %s: setting %s is a %s", env.Exp.Name, name, s.Kind))
		}
	}
	panic(fmt.Sprintf("experiment %s: no setting %s", env.Exp.Name, name))
}

// Has reports whether setting name has a value (given, or a default).
func (env *Env) Has(name string) bool {
	return env.setting(name, Int, Float, Text, Floats, Texts, Choice) != ""
}

// Int returns an Int setting (0 when unset).
func (env *Env) Int(name string) int {
	v, _ := strconv.Atoi(env.setting(name, Int))
	return v
}

// Float returns a Float setting (0 when unset).
func (env *Env) Float(name string) float64 {
	v, _ := strconv.ParseFloat(env.setting(name, Float), 64)
	return v
}

// Text returns a Text or Choice setting.
func (env *Env) Text(name string) string { return env.setting(name, Text, Choice) }

// Texts returns a Texts setting's items (trimmed; nil when unset).
func (env *Env) Texts(name string) []string { return splitList(env.setting(name, Texts)) }

// Floats returns a Floats setting's items.
func (env *Env) Floats(name string) []float64 {
	var out []float64
	for _, it := range splitList(env.setting(name, Floats)) {
		f, _ := strconv.ParseFloat(it, 64)
		out = append(out, f)
	}
	return out
}

// Load returns a shipped dataset (Config.FS or Config.DataDir), once per
// run.
func (env *Env) Load(name string) (*data.Dataset, error) {
	return Memo(env, "dataset "+name, func() (*data.Dataset, error) { return env.Config.Load(name) })
}

// Memo returns the value of f for key, computed once per Env (the first
// caller computes, concurrent callers wait). Values must not be modified.
func Memo[T any](env *Env, key string, f func() (T, error)) (T, error) {
	env.mu.Lock()
	e := env.memo[key]
	if e == nil {
		e = &memoEntry{}
		env.memo[key] = e
	}
	env.mu.Unlock()
	e.once.Do(func() { e.v, e.err = f() })
	v, _ := e.v.(T)
	return v, e.err
}

// progress forwards p to Config.Progress, one call at a time.
func (env *Env) progress(p model.Progress) {
	if env.Config.Progress == nil {
		return
	}
	env.progMu.Lock()
	defer env.progMu.Unlock()
	env.Config.Progress(p)
}

// CPUClock reports whether fits are timed in CPU seconds (else wall clock).
func CPUClock() bool {
	_, ok := cputime.Thread()
	if !ok {
		_, ok = cputime.Process()
	}
	return ok
}

// TaskContext is what a running task gets: its Env and Task, fit options
// that forward progress, and clocks whose readings go to Done.Timing.
type TaskContext struct {
	Env  *Env
	Task Task
	// fraction is the run's fraction done when the task started.
	fraction float64
	timing   map[string]float64
	pause    model.PauseClock
}

// Options returns fit options with the given seed whose progress reports
// reach Config.Progress (in the browser the page gets its turns there);
// the time they take is not counted by Time.
func (tc *TaskContext) Options(seed int64) model.Options {
	opt := model.Options{Seed: seed, Workspace: tc.Env.ws}
	if tc.Env.Config.Progress != nil {
		opt.Progress = tc.pause.Wrap(func(p model.Progress) {
			msg := tc.Task.ID
			if s := strings.TrimSpace(p.Stage + " " + p.Message); s != "" {
				msg += ": " + s
			}
			tc.Env.progress(model.Progress{Fraction: tc.fraction, Stage: tc.Env.Exp.Name + " experiment", Iter: p.Iter, Message: msg})
		})
	}
	return opt
}

// Time runs f and adds its CPU seconds (wall clock where there is no CPU
// clock) to Timing[key] and its wall seconds to Timing[key+"_wall"], both
// without the time spent in progress reports. Under Config.NoTiming it only
// runs f.
func (tc *TaskContext) Time(key string, f func() error) error {
	if tc.Env.Config.NoTiming {
		return f()
	}
	p0 := tc.pause.Paused
	sw := cputime.Start()
	err := f()
	cpu, ok, wall := sw.Stop()
	wall -= (tc.pause.Paused - p0).Seconds()
	if !ok {
		cpu = wall
	}
	tc.timing[key] += cpu
	tc.timing[key+"_wall"] += wall
	return err
}

// Fit fits spec on train with values v (resolved against the spec) and
// seed, timed under key (see Time).
func (tc *TaskContext) Fit(ctx context.Context, key string, spec *model.Spec, train *data.Dataset, v model.Values, seed int64) (model.Fitted, error) {
	rv, err := spec.Resolve(v)
	if err != nil {
		return nil, err
	}
	var f model.Fitted
	err = tc.Time(key, func() error {
		var err error
		f, err = spec.Fit(ctx, train, rv, tc.Options(seed))
		return err
	})
	return f, err
}

// RunTask runs one task of this Env's experiment.
func (env *Env) RunTask(ctx context.Context, t Task) (Done, error) {
	return env.runTask(ctx, t, 0)
}

func (env *Env) runTask(ctx context.Context, t Task, fraction float64) (Done, error) {
	if err := ctx.Err(); err != nil {
		return Done{}, err
	}
	tc := &TaskContext{Env: env, Task: t, fraction: fraction, timing: map[string]float64{}}
	start := time.Now()
	out, err := env.Exp.RunTask(ctx, tc)
	if err != nil {
		if ctx.Err() != nil {
			return Done{}, ctx.Err()
		}
		return Done{}, fmt.Errorf("task %s: %w", t.ID, err)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return Done{}, fmt.Errorf("task %s: output: %w", t.ID, err)
	}
	d := Done{Task: t, Out: b}
	if !env.Config.NoTiming {
		tc.timing["task_wall"] = time.Since(start).Seconds()
		d.Timing = tc.timing
	}
	return d, nil
}

// Plan returns the ready tasks given the finished tasks (Experiment.Plan).
func (env *Env) Plan(done []Done) (Stage, error) { return env.Exp.Plan(env, done) }

// Aggregate builds the Result from every finished task.
func (env *Env) Aggregate(done []Done) (*Result, error) { return env.Exp.Aggregate(env, done) }

// Run runs the experiment: its plan, Config.Jobs tasks at a time
// (RunPlan), then the aggregation. The Result does not depend on Config.Jobs.
func (e *Experiment) Run(ctx context.Context, cfg Config) (*Result, error) {
	env, err := NewEnv(e, cfg)
	if err != nil {
		return nil, err
	}
	done, err := env.RunPlan(ctx)
	if err != nil {
		return nil, err
	}
	return env.Aggregate(done)
}

// Parallel calls run(ctx, i, report) for i = 0 … n−1 on jobs goroutines
// (≤ 1: in order on the calling goroutine). The first failure cancels the
// calls not yet started and the others' context; the error returned is the
// failure of the lowest i that is not a cancellation (else the
// cancellation). progress (may be nil) gets the fraction of calls done, one
// call at a time; report forwards a call's own reports to it with that
// fraction (nil when progress is nil).
func Parallel(ctx context.Context, n, jobs int, run func(ctx context.Context, i int, report func(model.Progress)) error, progress func(model.Progress)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	finished := 0
	send := func(p model.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if n > 0 {
			p.Fraction = float64(finished) / float64(n)
		}
		progress(p)
	}
	var report func(model.Progress)
	if progress != nil {
		report = send
	}
	errs := make([]error, n)
	work := func(i int) {
		if errs[i] = ctx.Err(); errs[i] == nil {
			errs[i] = run(ctx, i, report)
		}
		if errs[i] != nil {
			cancel()
			return
		}
		mu.Lock()
		finished++
		f := float64(finished) / float64(n)
		mu.Unlock()
		if progress != nil {
			send(model.Progress{Fraction: f, Stage: fmt.Sprintf("%d of %d", int(math.Round(f*float64(n))), n)})
		}
	}
	if jobs <= 1 {
		for i := 0; i < n && ctx.Err() == nil; i++ {
			work(i)
		}
	} else {
		next := make(chan int)
		var wg sync.WaitGroup
		for w := 0; w < min(jobs, n); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					work(i)
				}
			}()
		}
		for i := 0; i < n && ctx.Err() == nil; i++ {
			next <- i
		}
		close(next)
		wg.Wait()
	}
	var ctxErr error
	for _, err := range errs {
		switch {
		case err == nil:
		case isCancel(err):
			ctxErr = err
		default:
			return err
		}
	}
	if ctxErr != nil {
		return ctxErr
	}
	return ctx.Err()
}

// RunTaskJSON is a worker's entry point: it runs one task, given as the
// JSON of a Task, of experiment name under cfg (the settings, and FS or
// DataDir for the datasets) and returns the JSON of its Done.
func RunTaskJSON(ctx context.Context, name string, cfg Config, task []byte) ([]byte, error) {
	env, err := NewEnvByName(name, cfg)
	if err != nil {
		return nil, err
	}
	t, err := Decode[Task](task)
	if err != nil {
		return nil, fmt.Errorf("task: %w", err)
	}
	d, err := env.RunTask(ctx, t)
	if err != nil {
		return nil, err
	}
	return json.Marshal(d)
}
