package app

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// TestPrerender renders the page on the server, as the server does for the
// first paint: no component may touch the browser while rendering.
func TestPrerender(t *testing.T) {
	Register()
	h := &app.Handler{Name: "LUPI Lab", Title: "LUPI Lab"}
	for _, path := range []string{"/", "/?tab=papers", "/?tab=about", "/?data=gen:twoview2d&model=mpwtsvm", "/learn", "/learn/svm2plus", "/learn/gpcplus"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), "LUPI Lab") {
			t.Errorf("%s: status %d, %d bytes", path, rec.Code, rec.Body.Len())
		}
	}
}
