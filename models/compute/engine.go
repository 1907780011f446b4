// Package compute is the engine of LUPI Lab's compute workers: it answers
// the page's requests (package wire) — fit a model, map its decision over a
// window, score a cross-validation cell, parse an upload, run a step of a
// paper's experiment — with the models of this module. It is plain Go with
// no browser API: the worker's entry point (wasm/compute) only moves
// messages between JavaScript and Engine.Handle, and the tests drive the
// engine natively.
//
// A worker holds a few datasets (by their DataRef) and the models it fitted
// with Keep (by handle), so that the page's follow-up requests — a finer
// map, a zoomed window, a results file — need no refit. Any worker can
// rebuild a model from its saved form when another worker held it.
package compute

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"lupilab/models/datasets"
	"lupilab/models/experiment"
	"lupilab/models/model"
	"lupilab/models/run"
	"lupilab/models/wire"
)

// Engine answers requests. Its methods are safe for concurrent use, but a
// worker runs one job at a time.
type Engine struct {
	// Fetch reads a shipped file by its name under web/datasets
	// ("index.json", "wdbc.csv").
	Fetch func(name string) ([]byte, error)
	// Yield, when set, is called from a running job at most every
	// YieldEvery: it lets the worker's event loop run, which is when a
	// Cancel message is delivered.
	Yield      func()
	YieldEvery time.Duration
	// ProgressEvery is the least time between two Progress messages.
	ProgressEvery time.Duration
	// Build describes the engine's build (reported in Hello).
	Build string

	// nap stands in for time.Sleep when set (the tests see a watched
	// fit's pauses).
	nap func(time.Duration)

	// paces holds watched fits' speeds by job id (Pace); it has a lock
	// of its own, taken from the worker's message handler.
	paceMu sync.Mutex
	paces  map[int64]*pace

	mu    sync.Mutex
	index []datasets.IndexEntry
	data  lru[*edited]
	kept  lru[*kept]
	next  int
	envs  map[string]*experiment.Env
}

// kept is a fitted model the page may ask more of.
type kept struct {
	out   *run.Outcome
	split wire.Split
}

// New returns an engine that reads shipped files with fetch.
func New(fetch func(name string) ([]byte, error)) *Engine {
	return &Engine{Fetch: fetch, YieldEvery: 20 * time.Millisecond, ProgressEvery: 50 * time.Millisecond,
		data: lru[*edited]{cap: 6}, kept: lru[*kept]{cap: 12}}
}

func (e *Engine) sleep(d time.Duration) {
	if e.nap != nil {
		e.nap(d)
		return
	}
	time.Sleep(d)
}

// Hello is the engine's first message.
func (e *Engine) Hello() wire.Message {
	m, _ := wire.Encode(0, wire.KindHello, wire.Hello{Version: wire.Version, Build: e.Build}, nil)
	return m
}

// job is one running request.
type job struct {
	id                      int64
	emit                    func(wire.Message)
	e                       *Engine
	start                   time.Time
	lastYield, lastProgress time.Time
	pace                    *pace // a watched fit's speed
	// quiet, while set, yields but sends no progress (a watched fit's
	// snapshot maps: the fit's own stage stays on screen).
	quiet bool
}

// progress sends a Progress message (throttled) and yields to the event loop
// (throttled), so that a Cancel message can arrive.
func (j *job) progress(p model.Progress) {
	now := time.Now()
	if j.e.Yield != nil && now.Sub(j.lastYield) >= j.e.YieldEvery {
		j.e.Yield()
		j.lastYield = time.Now()
	}
	if j.quiet || now.Sub(j.lastProgress) < j.e.ProgressEvery {
		return
	}
	j.lastProgress = now
	j.send(wire.KindProgress, wire.Progress{Fraction: p.Fraction, Stage: p.Stage, Iter: p.Iter, Message: p.Message,
		Elapsed: now.Sub(j.start).Seconds()}, nil)
}

func (j *job) send(kind string, v any, bin *wire.Bin) {
	m, err := wire.Encode(j.id, kind, v, bin)
	if err != nil {
		m, _ = wire.Encode(j.id, wire.KindError, wire.Error{Kind: wire.ErrInternal, Message: err.Error()}, nil)
	}
	j.emit(m)
}

// Handle answers one request, sending every message of the job through emit
// (from the calling goroutine), the last one being a Result, an Error or
// Cancelled. ctx is the job's: cancelling it stops the job. A panic is
// caught here and ends the job with an internal Error naming the request.
func (e *Engine) Handle(ctx context.Context, m wire.Message, emit func(wire.Message)) {
	j := &job{id: m.ID, emit: emit, e: e, start: time.Now(), pace: e.paceOf(m.ID, true)}
	j.lastYield, j.lastProgress = j.start, j.start
	defer func() {
		if r := recover(); r != nil {
			j.send(wire.KindError, wire.Error{Kind: wire.ErrInternal,
				Message: fmt.Sprintf("internal error while answering a %q request: %v. Please report it with the link of this page.", m.Kind, r)}, nil)
			debug.FreeOSMemory()
		}
	}()
	res, bin, err := e.dispatch(ctx, m, j)
	switch {
	case errors.Is(err, context.Canceled) || (err != nil && ctx.Err() != nil):
		j.send(wire.KindCancelled, nil, nil)
	case err != nil:
		var we *wire.Error
		if errors.As(err, &we) {
			j.send(wire.KindError, we, nil)
		} else {
			j.send(wire.KindError, wire.Error{Kind: wire.ErrInput, Message: err.Error()}, nil)
		}
	default:
		j.send(wire.KindResult, res, bin)
	}
}

func (e *Engine) dispatch(ctx context.Context, m wire.Message, j *job) (any, *wire.Bin, error) {
	switch m.Kind {
	case wire.KindFit:
		var req wire.FitRequest
		if _, err := m.Decode(&req); err != nil {
			return nil, nil, err
		}
		return e.fit(ctx, req, j)
	case wire.KindCalibrate:
		var req wire.FitRequest
		if _, err := m.Decode(&req); err != nil {
			return nil, nil, err
		}
		return e.calibrate(ctx, req, j)
	case wire.KindImport:
		var req wire.ImportRequest
		if _, err := m.Decode(&req); err != nil {
			return nil, nil, err
		}
		return e.importModel(ctx, req, j)
	case wire.KindGrid:
		var req wire.GridRequest
		if _, err := m.Decode(&req); err != nil {
			return nil, nil, err
		}
		return e.grid(ctx, req, j)
	case wire.KindResultsCSV:
		var req wire.ModelRequest
		if _, err := m.Decode(&req); err != nil {
			return nil, nil, err
		}
		return e.resultsCSV(ctx, req, j)
	case wire.KindCV:
		var req wire.CVRequest
		if _, err := m.Decode(&req); err != nil {
			return nil, nil, err
		}
		res, err := e.cv(ctx, req, j)
		return res, nil, err
	case wire.KindParse:
		var req wire.ParseRequest
		bin, err := m.Decode(&req)
		if err != nil {
			return nil, nil, err
		}
		res, err := e.parse(req, bin)
		return res, nil, err
	case wire.KindPoints:
		var req wire.PointsRequest
		if _, err := m.Decode(&req); err != nil {
			return nil, nil, err
		}
		res, err := e.points(req)
		return res, nil, err
	case wire.KindExpList:
		return e.experiments(), nil, nil
	case wire.KindExperiment:
		var req wire.ExpRequest
		if _, err := m.Decode(&req); err != nil {
			return nil, nil, err
		}
		res, err := e.runExperiment(ctx, req, j)
		return res, nil, err
	case wire.KindExpPlan, wire.KindExpReduce:
		var req wire.ExpPlanRequest
		if _, err := m.Decode(&req); err != nil {
			return nil, nil, err
		}
		if m.Kind == wire.KindExpReduce {
			res, err := e.expReduce(req)
			return res, nil, err
		}
		res, err := e.expPlan(req)
		return res, nil, err
	case wire.KindExpTask:
		var req wire.ExpTaskRequest
		if _, err := m.Decode(&req); err != nil {
			return nil, nil, err
		}
		res, err := e.expTask(ctx, req, j)
		return res, nil, err
	case wire.KindForget:
		var req wire.ForgetRequest
		if _, err := m.Decode(&req); err != nil {
			return nil, nil, err
		}
		e.forget(req.Keep)
		return struct{}{}, nil, nil
	}
	if m.V != wire.Version {
		return nil, nil, fmt.Errorf("this page speaks message version %d, the compute engine %d: reload the page", m.V, wire.Version)
	}
	return nil, nil, fmt.Errorf("unknown request %q", m.Kind)
}

// lru is a small least-recently-used map.
type lru[T any] struct {
	cap   int
	keys  []string
	items map[string]T
}

func (l *lru[T]) get(k string) (T, bool) {
	v, ok := l.items[k]
	if ok {
		l.touch(k)
	}
	return v, ok
}

func (l *lru[T]) put(k string, v T) {
	if l.items == nil {
		l.items = map[string]T{}
	}
	l.items[k] = v
	l.touch(k)
	for len(l.keys) > l.cap {
		delete(l.items, l.keys[0])
		l.keys = l.keys[1:]
	}
}

func (l *lru[T]) touch(k string) {
	for i, x := range l.keys {
		if x == k {
			l.keys = append(l.keys[:i], l.keys[i+1:]...)
			break
		}
	}
	l.keys = append(l.keys, k)
}

func (l *lru[T]) retain(keep map[string]bool) {
	var ks []string
	for _, k := range l.keys {
		if keep[k] {
			ks = append(ks, k)
		} else {
			delete(l.items, k)
		}
	}
	l.keys = ks
}
