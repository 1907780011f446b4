package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"lupilab/models/model"
)

// planBudget paces the calls to Plan that only start dependent tasks
// earlier (with more than one worker): their work — counted as the finished
// tasks each call is given plus the tasks it returns, since a plan walks
// both — may reach planBudget per finished task. A plan walks a task in a
// few µs (gpcplus 6 µs, 980 tasks; mpwtsvm's full protocol 4 µs, 7.4
// million) and a task is a fit of 10 ms or more, so this keeps planning
// within about a tenth of the work for the shortest tasks and well under it
// for most, while a plan of a few hundred tasks is asked again after every
// finished task. A count, not a clock, so that the schedule, and
// Project's replay of it, does not depend on the machine.
const planBudget = 200

// scheduler hands out a plan's tasks as their inputs become known: it asks
// Plan for the ready tasks after a task finishes and queues the ones it has
// not handed out yet. It is the one scheduling policy of both RunPlan and
// Project, so that the projection schedules exactly as a run does.
//
// Order: the tasks start in the order they became ready, those of one
// Plan call in plan order (first in, first out). A task that a finished
// task has just made ready (a method's final fit once its grid is done)
// thus starts when a worker is free and the tasks ready before it have
// started — not after every task of its stage, as when each stage waited
// for the one before. Starting the newly ready tasks first instead
// (last in, first out) projected the same on 2 workers (±1 %) and, on 8
// and 16, from 5 % better (jointsvm, 8) to 10 % worse (svm2plus, 16) with
// scripts/bench-experiments.sh's configurations: it leaves tasks planned
// early for the end, long ones included.
// With one worker the order does not change the wall time, and Plan is
// called only when the queue is empty: stage by stage, as few calls as
// possible.
type scheduler struct {
	env      *Env
	workers  int
	done     []Done
	finished map[string]bool
	issued   map[string]Task // every task queued so far (waiting, running or finished)
	batches  [][]Task        // waiting tasks, one batch per Plan call, oldest first
	waiting  int
	later    int
	// since is the number of tasks finished since the last call to Plan;
	// planWork is the work of the calls so far (planBudget).
	since    int
	planWork int
}

func newScheduler(env *Env, workers int) (*scheduler, error) {
	s := &scheduler{env: env, workers: max(workers, 1), finished: map[string]bool{}, issued: map[string]Task{}}
	return s, s.plan()
}

// plan calls Plan with the finished tasks and queues the tasks it returns
// that are new.
func (s *scheduler) plan() error {
	st, err := s.env.Plan(s.done)
	s.planWork += len(s.done) + len(st.Tasks)
	s.since = 0
	if err != nil {
		return err
	}
	name := s.env.Exp.Name
	seen := make(map[string]bool, len(st.Tasks))
	var fresh []Task
	for _, t := range st.Tasks {
		switch old, ok := s.issued[t.ID]; {
		case seen[t.ID]:
			return fmt.Errorf("%s experiment: task %s planned twice", name, t.ID)
		case s.finished[t.ID]:
			return fmt.Errorf("%s experiment: task %s planned again after it finished", name, t.ID)
		case ok && !sameTask(old, t):
			return fmt.Errorf("%s experiment: task %s planned again with another seed or descriptor", name, t.ID)
		case ok:
		default:
			s.issued[t.ID] = t
			fresh = append(fresh, t)
		}
		seen[t.ID] = true
	}
	s.later = st.Later
	if len(fresh) > 0 {
		s.batches = append(s.batches, fresh)
		s.waiting += len(fresh)
	}
	return nil
}

// sameTask reports whether a and b are the same task: ID, seed and
// descriptor (as JSON, whatever its white space: a -tasks file is
// indented).
func sameTask(a, b Task) bool {
	if a.ID != b.ID || a.Seed != b.Seed {
		return false
	}
	if bytes.Equal(a.Spec, b.Spec) {
		return true
	}
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a.Spec) == nil && json.Compact(&cb, b.Spec) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}

// next returns the task to start next; false when none is waiting.
func (s *scheduler) next() (Task, bool) {
	for n := len(s.batches); n > 0; n = len(s.batches) {
		b := s.batches[0]
		if len(b) == 0 {
			s.batches = s.batches[1:]
			continue
		}
		s.batches[0] = b[1:]
		s.waiting--
		return b[0], true
	}
	return Task{}, false
}

// finish records task d, finished while running others still run, and
// calls Plan when workers would otherwise idle or when planning is cheap
// enough (planBudget; with one worker only when the queue is empty).
func (s *scheduler) finish(d Done, running int) error {
	s.done = append(s.done, d)
	s.finished[d.ID] = true
	s.since++
	idle := s.workers - running
	cheap := s.workers > 1 && s.planWork <= planBudget*len(s.done)
	if s.waiting < idle || cheap {
		return s.plan()
	}
	return nil
}

// complete reports whether the plan has ended: nothing waits, nothing
// runs and Plan has seen every finished task.
func (s *scheduler) complete(running int) bool {
	return s.waiting == 0 && running == 0 && s.since == 0
}

// fraction is the share of the tasks known so far that have finished.
func (s *scheduler) fraction() float64 {
	total := len(s.issued) + s.later
	if total == 0 {
		return 0
	}
	return float64(len(s.done)) / float64(total)
}

// RunPlan runs the plan's tasks, Config.Jobs at a time, each once Plan
// has returned it and a worker is free (see scheduler: a task whose inputs
// a finished task has just completed does not wait for the other tasks of
// its stage), and
// returns the finished tasks in plan order with their stages (Ordered):
// the same whatever Config.Jobs and the order the tasks finished in.
func (env *Env) RunPlan(ctx context.Context) ([]Done, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := max(env.Config.Jobs, 1)
	s, err := newScheduler(env, jobs)
	if err != nil {
		return nil, err
	}
	type result struct {
		d   Done
		err error
	}
	results := make(chan result, jobs)
	start := func(t Task, frac float64) {
		d, err := env.runTask(ctx, t, frac)
		results <- result{d, err}
	}
	running := 0
	var failure error
	for {
		for failure == nil && running < jobs {
			t, ok := s.next()
			if !ok {
				break
			}
			running++
			if jobs == 1 {
				start(t, s.fraction()) // on this goroutine, as the browser does
			} else {
				go start(t, s.fraction())
			}
		}
		if running == 0 {
			break
		}
		r := <-results
		running--
		switch {
		case r.err != nil:
			// the first failure that is not the cancellation of the others
			if failure == nil || isCancel(failure) && !isCancel(r.err) {
				failure = r.err
			}
			cancel()
		case failure != nil:
		default:
			if err := s.finish(r.d, running); err != nil {
				failure = err
				cancel()
				continue
			}
			env.progress(model.Progress{Fraction: s.fraction(), Stage: env.Exp.Name + " experiment", Message: r.d.ID})
		}
	}
	if failure != nil {
		return nil, failure
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !s.complete(0) {
		return nil, fmt.Errorf("%s experiment: the plan stopped with tasks waiting", env.Exp.Name)
	}
	done, err := env.Ordered(s.done)
	if err != nil {
		return nil, err
	}
	env.progress(model.Progress{Fraction: 1, Stage: env.Exp.Name + " experiment", Message: "done"})
	return done, nil
}

func isCancel(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// Ordered returns the finished tasks of a complete run in plan order, each
// with its Stage: it replays the plan stage by stage — stage 0 is what Plan
// returns given no finished task, stage k what it returns given the tasks of
// stages 0 … k−1 — in the order Plan returns them. That is the order and
// the stages of a run that waits for each stage to end, so neither depends
// on the order tasks finished in. It is an error when the replay does not
// reach exactly the tasks of done (a Plan that is not a function of the
// finished tasks, or returns a task it cannot yet know).
func (env *Env) Ordered(done []Done) ([]Done, error) {
	name := env.Exp.Name
	idx := Index(done)
	out := make([]Done, 0, len(done))
	placed := make(map[string]bool, len(done))
	for stage := 0; ; stage++ {
		st, err := env.Plan(out)
		if err != nil {
			return nil, err
		}
		n := len(out)
		for _, t := range st.Tasks {
			d, ok := idx[t.ID]
			switch {
			case placed[t.ID]:
				return nil, fmt.Errorf("%s experiment: task %s planned again after it finished", name, t.ID)
			case !ok:
				return nil, fmt.Errorf("%s experiment: task %s is in stage %d of the plan but did not run", name, t.ID, stage)
			case !sameTask(d.Task, t):
				return nil, fmt.Errorf("%s experiment: task %s planned with another seed or descriptor than it ran with", name, t.ID)
			}
			placed[t.ID] = true
			x := *d
			x.Stage = stage
			out = append(out, x)
		}
		if len(out) == n {
			break
		}
	}
	if len(out) != len(done) {
		for _, d := range done {
			if !placed[d.ID] {
				return nil, fmt.Errorf("%s experiment: task %s ran but the plan does not reach it stage by stage", name, d.ID)
			}
		}
		return nil, fmt.Errorf("%s experiment: %d tasks ran, the plan has %d", name, len(done), len(out))
	}
	return out, nil
}

// Project returns the wall time (seconds) RunPlan would take on workers
// workers if each task took the wall time it took in a finished run
// (tasks: that run's Done, with Timing["task_wall"], e.g. the file of
// `lupi experiment -tasks`; the run's settings must be this Env's), and
// nothing else cost time: the same scheduler, on a simulated clock. It
// ignores what more workers change in each task's own time (shared caches
// and memory bandwidth, the garbage collector) and the time outside tasks.
func (env *Env) Project(tasks []Done, workers int) (float64, error) {
	name := env.Exp.Name
	idx := Index(tasks)
	workers = max(workers, 1)
	s, err := newScheduler(env, workers)
	if err != nil {
		return 0, err
	}
	type run struct {
		end float64
		d   *Done
	}
	var running []run // in start order: ties end in start order
	clock := 0.0
	for {
		for len(running) < workers {
			t, ok := s.next()
			if !ok {
				break
			}
			d, ok := idx[t.ID]
			if !ok || !sameTask(d.Task, t) {
				return 0, fmt.Errorf("%s experiment: task %s is not among the recorded tasks (a run with other settings?)", name, t.ID)
			}
			w, ok := d.Timing["task_wall"]
			if !ok {
				return 0, fmt.Errorf("%s experiment: task %s has no recorded time (a run with -timing=false?)", name, t.ID)
			}
			running = append(running, run{clock + w, d})
		}
		if len(running) == 0 {
			break
		}
		k := 0
		for i, r := range running {
			if r.end < running[k].end {
				k = i
			}
		}
		r := running[k]
		running = append(running[:k], running[k+1:]...)
		clock = r.end
		if err := s.finish(*r.d, len(running)); err != nil {
			return 0, err
		}
	}
	if !s.complete(0) || len(s.done) != len(tasks) {
		return 0, fmt.Errorf("%s experiment: the plan ran %d of the %d recorded tasks", name, len(s.done), len(tasks))
	}
	return clock, nil
}
