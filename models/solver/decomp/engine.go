package decomp

import "context"

// Step is the outcome of Policy.Step.
type Step int

const (
	// Moved: the policy took a step.
	Moved Step = iota
	// Optimal: the stopping rule holds on the active variables.
	Optimal
	// Stuck: no working set decreases the objective although the stopping
	// rule does not hold (rounding at a tolerance too tight for it).
	Stuck
)

// Policy is a dual's part of the decomposition method: the working-set
// selection and the step along it (which keep the dual's equality
// constraints), shrinking, the optimality measure and the polish schedule.
// It keeps the iterate and its gradient in whatever form suits the dual.
// Run drives it.
type Policy interface {
	// Face gives the Newton polish its view of the dual.
	Face
	// Step selects a working set among the active variables and moves
	// along it, or says why it cannot. An error ends the solve.
	Step() (Step, error)
	// Shrink takes variables that are likely to stay at their bounds out of
	// the active set (Chang & Lin 2011, §5.1); Run calls it every
	// Config.ShrinkEvery iterations.
	Shrink()
	// Unshrink makes every variable active again, reconstructing its
	// gradient; false when none was shrunk.
	Unshrink() bool
	// Optimal measures the maximal KKT violation on the whole problem and
	// says whether it meets the stopping rule (after the iteration limit).
	Optimal() (violation float64, ok bool)
	// Violation is the violation the last Step measured.
	Violation() float64
	// IterWork is what an iteration costs in flops (about), the currency
	// of the polish budget.
	IterWork() float64
	// PolishDue says whether to polish now, after iter iterations that
	// have done work flops since the previous polish, and with what budget
	// (Config.Polish must be set).
	PolishDue(iter int, work float64) (budget float64, ok bool)
	// Polished reports the polish that PolishDue asked for: the budget it
	// left and whether it ran out of budget before it was done.
	Polished(left float64, unfinished bool)
}

// Config is what Run needs besides the policy.
type Config struct {
	// MaxIter bounds the iterations (> 0).
	MaxIter int
	// ShrinkEvery is the shrinking interval in iterations; 0 never shrinks.
	ShrinkEvery int
	// Progress, when set, is called every ProgressEvery iterations
	// (default 200) and around polishes with the iteration count and the
	// current violation.
	Progress      func(iter int, violation float64)
	ProgressEvery int
	// Polish, when not nil, runs the Newton polish when the policy asks
	// for it.
	Polish *Polisher
	// Watch, when set, is called after every iteration that moved (with
	// the iteration count): the caller decides whether to look at the
	// iterate (see model.Watch). It must not change the policy's state.
	Watch func(iter int)
}

// Outcome is what Run reports.
type Outcome struct {
	Iter      int
	Converged bool
	// Violation is the final maximal KKT violation.
	Violation float64
	// Polishes counts the polishes.
	Polishes int
}

// Run is the decomposition loop of LIBSVM's Solver (Chang & Lin 2011,
// §4): a step on a working set per iteration until the stopping rule holds
// on the active variables and then, after unshrinking, on all of them;
// shrinking every ShrinkEvery iterations, and the Newton polish when the
// policy's schedule asks for it (and again shrinking soon after, since a
// polish works on the whole problem). It returns ctx.Err() when ctx is
// cancelled; hitting MaxIter is not an error (Converged is false).
func Run(ctx context.Context, p Policy, cfg Config) (Outcome, error) {
	var out Outcome
	every := cfg.ProgressEvery
	if every <= 0 {
		every = 200
	}
	tick := func() {
		if cfg.Progress != nil {
			cfg.Progress(out.Iter, p.Violation())
		}
	}
	counter := cfg.ShrinkEvery + 1
	var work float64 // flops since the last polish
	stopped := false
	for out.Iter < cfg.MaxIter {
		if out.Iter%every == 0 && out.Iter > 0 {
			if err := ctx.Err(); err != nil {
				return out, err
			}
			tick()
		}
		if cfg.ShrinkEvery > 0 {
			if counter--; counter == 0 {
				counter = cfg.ShrinkEvery
				p.Shrink()
			}
		}
		if cfg.Polish != nil {
			if budget, ok := p.PolishDue(out.Iter, work); ok {
				out.Polishes++
				p.Unshrink() // a polish works on the whole problem
				tick()
				left, unfinished := cfg.Polish.Run(p, budget)
				p.Polished(left, unfinished)
				tick()
				work = 0
				counter = 1 // shrink again soon
			}
		}
		work += p.IterWork()
		st, err := p.Step()
		if err != nil {
			return out, err
		}
		if st == Optimal && p.Unshrink() {
			// optimal on the active set: check the whole problem
			if st, err = p.Step(); err != nil {
				return out, err
			}
			counter = 1
		}
		if st != Moved {
			out.Converged = st == Optimal
			stopped = true
			break
		}
		out.Iter++
		if cfg.Watch != nil {
			cfg.Watch(out.Iter)
		}
	}
	p.Unshrink()
	out.Violation = p.Violation()
	if !stopped {
		// the iteration limit: measure the final violation on the whole
		// problem
		out.Violation, out.Converged = p.Optimal()
	}
	return out, ctx.Err()
}
