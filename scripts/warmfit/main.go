// Command warmfit records what the compute engine answers to a first
// visit's requests (app.FirstVisitRequests: the default data's points, the
// device's calibration, the default fit) and writes the messages as JSON for the UI build's
// warm-up: web/compile.js hands them to web/warm.js, whose stand-in pool
// replays them, so that the loader worker — not the page's main thread —
// compiles the code that decodes, lays out and draws a fit's result. `make
// wasm` runs it.
//
// The data and the maps are recorded smaller than a visit's (-n points,
// maps of side -side and -preview): the code that handles them is the same
// at any size, and the file stays small.
//
//	go run ./scripts/warmfit -web web -out web/warm-fit.json
package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"lupilab/app"
	_ "lupilab/models/all" // every model, as in the compute build
	"lupilab/models/compute"
	"lupilab/models/wire"
)

// message is one recorded message, as web/worker.js posts it to the page
// (its binary arrays in base64).
type message struct {
	Kind string   `json:"kind"`
	Body string   `json:"body"`
	Bin  []string `json:"bin"`
}

// maxProgress is the most progress messages recorded per job.
const maxProgress = 3

// recording is the file's content: the messages of each job, by the
// request's kind.
type recording struct {
	V    int                  `json:"v"`
	Jobs map[string][]message `json:"jobs"`
}

func main() {
	web := flag.String("web", "web", "the web directory (its datasets/ are read)")
	out := flag.String("out", "web/warm-fit.json", "where to write the recording")
	side := flag.Int("side", 12, "the recorded full map's side")
	preview := flag.Int("preview", 4, "the recorded preview map's side")
	n := flag.Int("n", 16, "the recorded data's points (a generated default dataset)")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("warmfit: ")
	b, err := record(*web, *n, *side, *preview)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		log.Fatal(err)
	}
}

// record runs the first visit's requests through a compute engine and
// returns the recording's JSON.
func record(web string, n, side, preview int) ([]byte, error) {
	e := compute.New(func(name string) ([]byte, error) {
		return os.ReadFile(filepath.Join(web, "datasets", filepath.FromSlash(name)))
	})
	// A fit this small ends before the first progress message is due:
	// record every one (the first few), as a longer fit sends them.
	e.ProgressEvery = 0
	points, calibration, fit := app.FirstVisitRequests()
	if fit.Grid == nil {
		return nil, fmt.Errorf("the first visit's fit asks for no map")
	}
	fit.Grid.Side, fit.Grid.Preview = side, preview
	if points.Data.N > 0 {
		points.Data.N, fit.Data.N = n, n
	}
	rec := recording{V: wire.Version, Jobs: map[string][]message{}}
	for _, r := range []struct {
		kind string
		req  any
	}{{wire.KindPoints, points}, {wire.KindCalibrate, calibration}, {wire.KindFit, fit}} {
		body, err := json.Marshal(r.req)
		if err != nil {
			return nil, err
		}
		var msgs []message
		progress := 0
		e.Handle(context.Background(), wire.Message{V: wire.Version, ID: 1, Kind: r.kind, Body: body}, func(m wire.Message) {
			if m.Kind == wire.KindProgress {
				if progress++; progress > maxProgress {
					return
				}
			}
			if err == nil {
				m, err = withoutSavedModel(m)
			}
			rm := message{Kind: m.Kind, Body: string(m.Body), Bin: []string{}}
			for _, b := range m.Bin {
				rm.Bin = append(rm.Bin, base64.StdEncoding.EncodeToString(b))
			}
			msgs = append(msgs, rm)
		})
		if err != nil {
			return nil, err
		}
		if n := len(msgs); n == 0 || msgs[n-1].Kind != wire.KindResult {
			return nil, fmt.Errorf("the %s request did not end with a result: %+v", r.kind, msgs)
		}
		rec.Jobs[r.kind] = msgs
	}
	return json.Marshal(rec)
}

// withoutSavedModel drops the saved model from a fit's result part: it is
// the largest part of the recording (4.6 kB of 15 with 20 points) and the
// page only keeps it for an export, which the warm-up never does.
func withoutSavedModel(m wire.Message) (wire.Message, error) {
	if m.Kind != wire.KindPart {
		return m, nil
	}
	var p wire.Part
	if _, err := m.Decode(&p); err != nil || p.Fit == nil || p.Fit.Saved == "" || p.Grid != nil {
		return m, err
	}
	p.Fit.Saved = ""
	return wire.Encode(m.ID, m.Kind, p, nil)
}
