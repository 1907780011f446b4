package ncqp

import "context"

// schedule is the sweep loop Solve and SolveSoft share. Each sweep is one
// Gauss–Seidel pass over the variables; every 50 sweeps the gradient, kept
// up to date incrementally, is recomputed from scratch (round-off); after
// every sweep the residual decides convergence; while it is above tol an
// active-set polish runs at sweep firstPolish and then every polishEvery
// sweeps (the coordinate steps find the active set, the polish solves on it
// exactly); about every 10 ms of work (200 000 units of one
// multiply-add) ctx is checked and opt.Progress told the sweep and residual.
type schedule struct {
	maxSweeps   int
	tol         float64
	firstPolish int
	polishEvery int
	// refreshWork is the work a recomputed gradient counts (the amortised
	// n² of Solve; SolveSoft counts none).
	refreshWork int
}

// moves are one solver's operations on its own state (x, its gradient and
// whatever else the solver keeps), which the closures hold.
type moves struct {
	// sweep makes one pass and returns its work.
	sweep func() (int, error)
	// refresh recomputes the gradient from scratch.
	refresh func()
	// residual is the stopping measure at the current point.
	residual func() float64
	// polish tries an active-set polish from the current point of residual
	// r (calling tick now and then) and returns the residual after it and
	// its work.
	polish func(r float64, tick func()) (float64, int)
}

// run sweeps until the residual is at most tol or maxSweeps sweeps are
// done; it returns the number of sweeps before the last (the loop's index
// when it stopped) and the last residual. n is the number of variables
// (the residual's work).
func (s schedule) run(ctx context.Context, opt Options, n int, m moves) (sweep int, r float64, err error) {
	work := 0
	for ; sweep < s.maxSweeps; sweep++ {
		w, err := m.sweep()
		if err != nil {
			return sweep, r, err
		}
		work += w
		if sweep%50 == 49 {
			m.refresh()
			work += s.refreshWork
		}
		r = m.residual()
		work += n
		if r > s.tol && (sweep == s.firstPolish || sweep%s.polishEvery == s.polishEvery-1) {
			var w int
			r, w = m.polish(r, func() {
				if opt.Progress != nil {
					opt.Progress(sweep, r)
				}
			})
			work += w
		}
		if r <= s.tol {
			break
		}
		if work > 200000 {
			work = 0
			if err := ctx.Err(); err != nil {
				return sweep, r, err
			}
			if opt.Progress != nil {
				opt.Progress(sweep, r)
			}
		}
	}
	return sweep, r, nil
}
