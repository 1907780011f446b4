package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// dag is a synthetic experiment: each task needs the tasks listed for it
// (none: stage 0), and runs run(id) (nil: nothing).
func dag(needs map[string][]string, order []string, run func(ctx context.Context, id string) error) *Experiment {
	return &Experiment{
		Name: "dag",
		Plan: func(env *Env, done []Done) (Stage, error) {
			idx := Index(done)
			var st Stage
			for _, id := range order {
				if _, ok := idx[id]; ok {
					continue
				}
				ready := true
				for _, n := range needs[id] {
					if _, ok := idx[n]; !ok {
						ready = false
					}
				}
				if !ready {
					st.Later++
					continue
				}
				t, err := NewTask(id, 1, map[string]string{"id": id})
				if err != nil {
					return st, err
				}
				st.Tasks = append(st.Tasks, t)
			}
			return st, nil
		},
		RunTask: func(ctx context.Context, tc *TaskContext) (any, error) {
			if run != nil {
				if err := run(ctx, tc.Task.ID); err != nil {
					return nil, err
				}
			}
			return tc.Task.ID, nil
		},
	}
}

// events logs what the tasks did, in order.
type events struct {
	mu  sync.Mutex
	log []string
}

func (e *events) add(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.log = append(e.log, s)
}

func (e *events) index(s string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Index(e.log, s)
}

// A task whose inputs are done starts before a long task of the same stage
// ends: "long" cannot end before "b" (which needs "a") has started — a
// runner that waits for the stage {a, long, x1, x2} to end would never
// start it. Tasks start in the order they became ready: x1, x2 (ready from
// the start), then b. The finished tasks come back in plan order with
// their stages, as with one job.
func TestRunPlanStartsReadyTasksAtOnce(t *testing.T) {
	needs := map[string][]string{"b": {"a"}}
	order := []string{"a", "long", "x1", "x2", "b"}
	var ev events
	bStarted := make(chan struct{})
	e := dag(needs, order, func(ctx context.Context, id string) error {
		ev.add("start " + id)
		switch id {
		case "b":
			close(bStarted)
		case "long":
			select {
			case <-bStarted:
			case <-ctx.Done():
				return errors.New("b did not start while long ran: the runner waited for long's stage to end")
			}
		}
		ev.add("end " + id)
		return nil
	})
	// the deadline only turns a runner that would wait for ever into a
	// failure; nothing here depends on how long a task takes
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	env, err := NewEnv(e, Config{Jobs: 2, NoTiming: true})
	if err != nil {
		t.Fatal(err)
	}
	done, err := env.RunPlan(ctx)
	if err != nil {
		t.Fatalf("%v: b did not start while long ran (events %v)", err, ev.log)
	}
	if x1, x2, b := ev.index("start x1"), ev.index("start x2"), ev.index("start b"); x1 < 0 || x1 > x2 || x2 > b {
		t.Errorf("x1, x2 (ready from the start) and b (ready once a ended) started out of order: %v", ev.log)
	}
	var got []string
	for _, d := range done {
		got = append(got, fmt.Sprintf("%s:%d", d.ID, d.Stage))
	}
	if want := "a:0 long:0 x1:0 x2:0 b:1"; strings.Join(got, " ") != want {
		t.Errorf("finished tasks %v, want %s", got, want)
	}
}

// With one job the tasks run stage by stage, in plan order.
func TestRunPlanOneJob(t *testing.T) {
	needs := map[string][]string{"b": {"a"}, "c": {"b", "x"}}
	var ev events
	e := dag(needs, []string{"a", "x", "b", "y", "c"}, func(_ context.Context, id string) error {
		ev.add(id)
		return nil
	})
	env, err := NewEnv(e, Config{Jobs: 1, NoTiming: true})
	if err != nil {
		t.Fatal(err)
	}
	done, err := env.RunPlan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ev.log, " "); got != "a x y b c" {
		t.Errorf("ran %s, want a x y b c", got)
	}
	var stages []int
	for _, d := range done {
		stages = append(stages, d.Stage)
	}
	if !slices.Equal(stages, []int{0, 0, 0, 1, 2}) {
		t.Errorf("stages %v", stages)
	}
}

// A failing task ends the run with its error, not the cancellation of the
// others.
func TestRunPlanFailure(t *testing.T) {
	boom := errors.New("boom")
	e := dag(nil, []string{"a", "b", "c"}, func(ctx context.Context, id string) error {
		if id == "b" {
			return boom
		}
		<-ctx.Done()
		return ctx.Err()
	})
	env, err := NewEnv(e, Config{Jobs: 3, NoTiming: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.RunPlan(context.Background()); !errors.Is(err, boom) {
		t.Errorf("error %v, want boom", err)
	}
}

// Plans that break the contract are errors, not loops or silent
// reordering: a finished task planned again, a task planned again with
// another descriptor while it runs, finished tasks that a stage-by-stage
// replay of the plan does not reach (a plan that depends on the order
// tasks finished in) or that miss a task it plans.
func TestRunPlanContract(t *testing.T) {
	task := func(id string, spec int) Task {
		x, err := NewTask(id, 1, spec)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	env := func(jobs int, plan func(done []Done) []Task, run func(id string)) *Env {
		e := &Experiment{Name: "bad",
			Plan: func(_ *Env, done []Done) (Stage, error) { return Stage{Tasks: plan(done)}, nil },
			RunTask: func(_ context.Context, tc *TaskContext) (any, error) {
				if run != nil {
					run(tc.Task.ID)
				}
				return 1, nil
			},
		}
		env, err := NewEnv(e, Config{Jobs: jobs, NoTiming: true})
		if err != nil {
			t.Fatal(err)
		}
		return env
	}
	check := func(err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want one saying %q", err, want)
		}
	}
	// the deadline only turns a runner that would wait for ever into a
	// failure
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := env(1, func([]Done) []Task { return []Task{task("a", 0)} }, nil).RunPlan(ctx)
	check(err, "planned again after it finished")

	// b (spec 1) runs until Plan has seen a finished, and Plan then
	// returns b with spec 2
	aSeen := make(chan struct{})
	var once sync.Once
	_, err = env(2, func(done []Done) []Task {
		if len(Index(done)) == 0 {
			return []Task{task("a", 0), task("b", 1)}
		}
		once.Do(func() { close(aSeen) })
		return []Task{task("b", 2)}
	}, func(id string) {
		if id == "b" {
			select {
			case <-aSeen:
			case <-ctx.Done():
			}
		}
	}).RunPlan(ctx)
	check(err, "planned again with another seed or descriptor")

	// c is planned once b has finished before a
	orderDependent := env(1, func(done []Done) []Task {
		idx := Index(done)
		var out []Task
		for _, id := range []string{"a", "b"} {
			if _, ok := idx[id]; !ok {
				out = append(out, task(id, 0))
			}
		}
		if _, ok := idx["c"]; !ok && len(done) >= 2 && done[0].ID == "b" {
			out = append(out, task("c", 0))
		}
		return out
	}, nil)
	ran := []Done{{Task: task("b", 0)}, {Task: task("a", 0)}, {Task: task("c", 0)}}
	_, err = orderDependent.Ordered(ran)
	check(err, "task c ran but the plan does not reach it stage by stage")
	_, err = orderDependent.Ordered(ran[1:])
	check(err, "task b is in stage 0 of the plan but did not run")
}

// Project schedules recorded task times as RunPlan would: on two workers b
// (1 s, needs a, 1 s) runs beside long (3 s): 3 s, where waiting for the
// stage {a, long} would take 4; on one worker the sum, 5 s; and the tasks
// must be those of the plan, with times.
func TestProject(t *testing.T) {
	needs := map[string][]string{"b": {"a"}}
	e := dag(needs, []string{"a", "long", "b"}, nil)
	env, err := NewEnv(e, Config{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	done, err := env.RunPlan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	secs := map[string]float64{"a": 1, "long": 3, "b": 1}
	for i := range done {
		done[i].Timing = map[string]float64{"task_wall": secs[done[i].ID]}
	}
	for workers, want := range map[int]float64{1: 5, 2: 3, 3: 3} {
		got, err := env.Project(done, workers)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%d workers: %g s, want %g", workers, got, want)
		}
	}
	if _, err := env.Project(done[:2], 2); err == nil || !strings.Contains(err.Error(), "not among the recorded tasks") {
		t.Errorf("a missing task: %v", err)
	}
	done[0].Timing = nil
	if _, err := env.Project(done, 2); err == nil || !strings.Contains(err.Error(), "no recorded time") {
		t.Errorf("a task without its time: %v", err)
	}
}
