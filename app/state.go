package ui

import (
	"net/url"
	"strconv"
	"strings"

	"lupilab/models/model"
)

// sessionKey is the local-storage key of the last session (the same query
// string the URL carries).
const sessionKey = "lupilab.session"

// uploadKey keeps the last uploaded file (within uploadBudget bytes) so that
// a reload restores it; "Forget my data" deletes it.
const (
	uploadKey     = "lupilab.upload"
	uploadNameKey = "lupilab.upload.name"
	uploadBudget  = 2 << 20
)

// encodeState writes the playground's reproducible state as URL query values:
// dataset or generator with its settings, split, seed, model and the
// model's parameters (only those that differ from the defaults).
func (p *Playground) encodeState() url.Values {
	q := url.Values{}
	q.Set("data", p.source)
	if strings.HasPrefix(p.source, "gen:") {
		q.Set("n", strconv.Itoa(p.n))
		q.Set("noise", strconv.FormatFloat(p.noise, 'g', -1, 64))
	}
	q.Set("seed", strconv.FormatInt(p.seed, 10))
	q.Set("train", strconv.Itoa(int(p.trainFrac*100+0.5)))
	q.Set("model", p.modelID)
	if p.view != "" && p.view != "model" {
		q.Set("view", p.view)
	}
	if s := p.spec(); s != nil {
		def := s.Defaults()
		for k, v := range p.vals() {
			if def[k] != v {
				q.Set("p."+k, v)
			}
		}
	}
	return q
}

// decodeState reads a state written by encodeState; unknown or invalid
// values are ignored (a hand-edited link never breaks the app).
func (p *Playground) decodeState(q url.Values) bool {
	if q.Get("data") == "" && q.Get("model") == "" {
		return false
	}
	if v := q.Get("data"); strings.HasPrefix(v, "gen:") || strings.HasPrefix(v, "ds:") || strings.HasPrefix(v, "up:") {
		p.source = v
	}
	if n, err := strconv.Atoi(q.Get("n")); err == nil && n >= 10 && n <= 5000 {
		p.n = n
	}
	if f, err := strconv.ParseFloat(q.Get("noise"), 64); err == nil && f >= 0 && f <= 2 {
		p.noise = f
	}
	if s, err := strconv.ParseInt(q.Get("seed"), 10, 64); err == nil && s >= 0 {
		p.seed = s
	}
	if t, err := strconv.Atoi(q.Get("train")); err == nil && t >= 10 && t <= 90 {
		p.trainFrac = float64(t) / 100
	}
	if v := q.Get("view"); v == "compare" || v == "tune" {
		p.view = v
	}
	if id := q.Get("model"); id != "" {
		if spec, err := model.Lookup(id); err == nil {
			p.modelID = id
			vals := spec.Defaults()
			for k, v := range q {
				name, ok := strings.CutPrefix(k, "p.")
				if !ok || len(v) == 0 {
					continue
				}
				if par := spec.Param(name); par != nil && par.Validate(v[0]) == nil {
					vals[name] = v[0]
				}
			}
			p.values[id] = vals
		}
	}
	return true
}
