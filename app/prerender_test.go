package app

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// TestPrerender renders the page on the server, as the server does for the
// first paint: no component may touch the browser while rendering, and
// each address is pre-rendered as its own page (not as the playground, as
// every page was when the view was read only on navigation, which go-app
// does not do on the server).
func TestPrerender(t *testing.T) {
	Register()
	h := &app.Handler{Name: "LUPI Lab", Title: "LUPI Lab"}
	const playground = `id="dataset"`
	for path, want := range map[string]string{
		"/":                                  playground,
		"/?tab=papers":                       "<h1>The papers&#39; experiments",
		"/?tab=about":                        "<h1>About LUPI Lab",
		"/?data=gen:twoview2d&model=mpwtsvm": playground,
		"/learn":                             `id="tour-gpcplus"`,
		"/learn/svm2plus":                    `id="step-1-title"`,
		"/learn/gpcplus":                     "<h1>GPC+: noise that depends on privileged information",
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		body := rec.Body.String()
		if rec.Code != 200 || !strings.Contains(body, "LUPI Lab") {
			t.Errorf("%s: status %d, %d bytes", path, rec.Code, rec.Body.Len())
		}
		if !strings.Contains(body, want) {
			t.Errorf("%s: the pre-rendered page lacks %s", path, want)
		}
		if want != playground && strings.Contains(body, playground) {
			t.Errorf("%s: pre-rendered with the playground", path)
		}
	}
}
