// Package wire defines the messages between LUPI Lab's page and its compute
// workers. The browser runs two WebAssembly builds: the UI (go-app, no
// numerics) on the page's main thread, and the compute engine (models,
// solvers, readers, experiments; package compute) in a pool of Web Workers.
// They talk only through these messages, versioned by Version.
//
// A message travels as a JavaScript object {v, id, kind, body, bin}: v is
// Version, id numbers the job it belongs to, kind says what it is, body is
// the JSON of the kind's Go type below, and bin holds binary arrays (grids,
// coordinates) that the JSON refers to by index (Blob), transferred without
// copying. The package is standard library only, so both builds use it.
//
// A job is one request from the page (Fit, Grid, CV, …) answered by zero or
// more Progress and Part messages and exactly one Result, Error or
// Cancelled message with the same id. Cancel asks the worker to stop a job;
// a worker that does not answer within 100 ms is terminated by the page.
package wire

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// Version is the version of the message formats below. A worker answers a
// request of another version with an Error, so a page and a worker from
// different builds (a cached one beside a new one) say so instead of
// misreading each other. 2: KindPace, FitRequest.WatchSpeed and the
// snapshots' speed. 3: points' rows, classes and predictions travel as
// int32 parts. 4: multi-class maps carry the class regions' borders (the
// "class" layer's iso-line) and per-class "margin" layers.
const Version = 4

// Request kinds (page → worker).
const (
	KindFit        = "fit"        // FitRequest → FitResult, with Part(GridResult) messages when it asks for maps
	KindCalibrate  = "calibrate"  // FitRequest → FitResult: a fit that measures the device's speed (the page's first job; logged apart from the user's fits)
	KindGrid       = "grid"       // GridRequest → GridResult
	KindImport     = "import"     // ImportRequest → FitResult (a saved model scored on the current split)
	KindResultsCSV = "resultscsv" // ModelRequest → TextResult (per-sample results as CSV)
	KindCV         = "cv"         // CVRequest → CVResult (one cell of a cross-validated grid)
	KindParse      = "parse"      // ParseRequest → ParseResult (an uploaded file)
	KindPoints     = "points"     // PointsRequest → FitResult without a model (the data's points)
	KindExpList    = "explist"    // (no body) → []ExpInfo: the papers' experiments
	KindExperiment = "experiment" // ExpRequest → ExpResult: one experiment, browser-sized, in one worker
	KindExpPlan    = "expplan"    // ExpPlanRequest → ExpStage: the next stage of an experiment's tasks
	KindExpTask    = "exptask"    // ExpTaskRequest → one finished task (JSON)
	KindExpReduce  = "expreduce"  // ExpPlanRequest → ExpResult: the tables from every finished task
	KindCancel     = "cancel"     // (no body): stop the job with this id
	KindPace       = "pace"       // Pace: change the pace of the watched fit with this id
	KindForget     = "forget"     // ForgetRequest: drop kept models
)

// Answer kinds (worker → page).
const (
	KindHello     = "hello"     // Hello: the worker is ready (id 0)
	KindProgress  = "progress"  // Progress of a running job
	KindPart      = "part"      // a partial result of a running job (e.g. a preview map)
	KindResult    = "result"    // the job's result; the job is over
	KindError     = "error"     // Error: the job failed; it is over
	KindCancelled = "cancelled" // the job stopped on request; it is over
)

// Message is one message in Go form.
type Message struct {
	V    int
	ID   int64
	Kind string
	Body []byte   // JSON of the kind's type (empty for none)
	Bin  [][]byte // binary arrays referred to by Blob indices in Body
}

// Encode builds a message of the given kind whose body is v: the binary
// arrays v placed in bin travel with it.
func Encode(id int64, kind string, v any, bin *Bin) (Message, error) {
	m := Message{V: Version, ID: id, Kind: kind}
	// a fit's arrays travel as binary parts (pack.go)
	parts := func() *Bin {
		if bin == nil {
			bin = &Bin{}
		}
		return bin
	}
	switch p := v.(type) {
	case Part:
		v = packPart(p, parts())
	case *Part:
		if p != nil {
			v = packPart(*p, parts())
		}
	case *FitResult:
		if p != nil {
			v = packPart(Part{Fit: p}, parts()).Fit
		}
	case *GridResult:
		if p != nil {
			v = packGrid(p, parts())
		}
	}
	if v != nil {
		b, err := json.Marshal(v)
		if err != nil {
			return m, fmt.Errorf("wire: encoding %s: %w", kind, err)
		}
		m.Body = b
	}
	if bin != nil && len(bin.parts) > 0 {
		m.Bin = bin.parts
	}
	return m, nil
}

// Decode reads the message's body into v and returns the binary arrays it
// refers to.
func (m Message) Decode(v any) (*Bin, error) {
	if m.V != Version {
		return nil, fmt.Errorf("wire: message version %d, this build speaks %d (reload the page)", m.V, Version)
	}
	if len(m.Body) > 0 && v != nil {
		if err := json.Unmarshal(m.Body, v); err != nil {
			return nil, fmt.Errorf("wire: decoding %s: %w", m.Kind, err)
		}
	}
	bin := &Bin{parts: m.Bin}
	var err error
	switch p := v.(type) {
	case *Part:
		if p != nil {
			err = unpackPart(p, bin)
		}
	case *FitResult:
		if p != nil {
			err = unpackPart(&Part{Fit: p}, bin)
		}
	case *GridResult:
		if p != nil {
			err = unpackGrid(p, bin)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("wire: decoding %s: %w", m.Kind, err)
	}
	return bin, nil
}

// Blob refers to one binary array of a message (an index into bin). The zero
// Blob refers to nothing.
type Blob struct {
	Index int    `json:"i"` // 1-based; 0 means absent
	Type  string `json:"t,omitempty"`
	N     int    `json:"n,omitempty"` // number of elements
}

// Bin collects the binary arrays of a message.
type Bin struct {
	parts [][]byte
}

// F32 appends v as little-endian float32 (grids and coordinates: seven
// significant digits are more than a screen shows) and returns its Blob.
func (b *Bin) F32(v []float64) Blob {
	buf := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(float32(x)))
	}
	b.parts = append(b.parts, buf)
	return Blob{Index: len(b.parts), Type: "f32", N: len(v)}
}

// F64 appends v as little-endian float64 and returns its Blob.
func (b *Bin) F64(v []float64) Blob {
	buf := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(buf[8*i:], math.Float64bits(x))
	}
	b.parts = append(b.parts, buf)
	return Blob{Index: len(b.parts), Type: "f64", N: len(v)}
}

// I32 appends v as little-endian int32 and returns its Blob; ok is false
// (and nothing is appended) when a value does not fit in an int32.
func (b *Bin) I32(v []int) (x Blob, ok bool) {
	buf := make([]byte, 4*len(v))
	for i, n := range v {
		if n < math.MinInt32 || n > math.MaxInt32 {
			return Blob{}, false
		}
		binary.LittleEndian.PutUint32(buf[4*i:], uint32(int32(n)))
	}
	b.parts = append(b.parts, buf)
	return Blob{Index: len(b.parts), Type: "i32", N: len(v)}, true
}

// Ints reads an int32 blob.
func (b *Bin) Ints(x Blob) ([]int, error) {
	p, err := b.part(x, "i32", 4)
	if err != nil || p == nil {
		return nil, err
	}
	out := make([]int, x.N)
	for i := range out {
		out[i] = int(int32(binary.LittleEndian.Uint32(p[4*i:])))
	}
	return out, nil
}

// Bytes appends raw bytes and returns their Blob.
func (b *Bin) Bytes(v []byte) Blob {
	b.parts = append(b.parts, v)
	return Blob{Index: len(b.parts), Type: "u8", N: len(v)}
}

// Parts returns the arrays (for the transport).
func (b *Bin) Parts() [][]byte { return b.parts }

func (b *Bin) part(x Blob, typ string, size int) ([]byte, error) {
	if x.Index == 0 {
		return nil, nil
	}
	if b == nil || x.Index < 1 || x.Index > len(b.parts) {
		return nil, fmt.Errorf("wire: blob %d is missing", x.Index)
	}
	if x.Type != typ {
		return nil, fmt.Errorf("wire: blob %d holds %s, not %s", x.Index, x.Type, typ)
	}
	p := b.parts[x.Index-1]
	if len(p) != size*x.N {
		return nil, fmt.Errorf("wire: blob %d has %d bytes for %d elements of %d", x.Index, len(p), x.N, size)
	}
	return p, nil
}

// Floats reads a float32 or float64 blob as float64.
func (b *Bin) Floats(x Blob) ([]float64, error) {
	size := 4
	if x.Type == "f64" {
		size = 8
	}
	p, err := b.part(x, x.Type, size)
	if err != nil || p == nil {
		return nil, err
	}
	if x.Type != "f32" && x.Type != "f64" {
		return nil, errors.New("wire: not a float blob")
	}
	out := make([]float64, x.N)
	for i := range out {
		if size == 4 {
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:])))
		} else {
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(p[8*i:]))
		}
	}
	return out, nil
}

// Raw reads a byte blob.
func (b *Bin) Raw(x Blob) ([]byte, error) { return b.part(x, "u8", 1) }

// RawPart returns the i-th (1-based) array as it travels, whatever its type
// (for the UI, which hands float32 grids to the canvas without decoding).
func (b *Bin) RawPart(x Blob) []byte {
	if b == nil || x.Index < 1 || x.Index > len(b.parts) {
		return nil
	}
	return b.parts[x.Index-1]
}

// Hello is the first message of a worker once its engine runs.
type Hello struct {
	Version int    `json:"version"`
	Build   string `json:"build"` // the compute build's Go version and settings
}

// Progress reports a running job.
type Progress struct {
	Fraction float64 `json:"fraction"`          // in [0, 1]; −1 when unknown
	Stage    string  `json:"stage,omitempty"`   // e.g. "class 2 of 5", "EP sweep 3"
	Iter     int     `json:"iter,omitempty"`    // solver iterations so far
	Message  string  `json:"message,omitempty"` // free text
	Elapsed  float64 `json:"elapsed"`           // seconds since the job started in the worker
}

// Error kinds.
const (
	ErrInput    = "input"    // the data, parameters or file cannot be used (the message says why)
	ErrBudget   = "budget"   // refused before starting: it would exceed a memory or time budget
	ErrInternal = "internal" // a bug: an unexpected panic, caught at the worker's boundary
)

// Error ends a failed job.
type Error struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Message }
