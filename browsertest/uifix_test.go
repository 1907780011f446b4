package browsertest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// runTune opens the Tune view of link and runs a grid of steps × steps
// values with k folds.
func runTune(t *testing.T, link string, steps, k int) *browser {
	t.Helper()
	url := startServer(t)
	b := newBrowser(t, 1280, 1000)
	b.open(t, url+link)
	b.waitJS(t, `document.getElementById("tune-run") && window.lupiPool && lupiPool.ready()`, time.Minute)
	b.setInput(t, "tune-steps", strconv.Itoa(steps))
	b.setInput(t, "tune-folds", strconv.Itoa(k))
	b.run(t, chromedp.Click("#tune-run", chromedp.ByID))
	return b
}

// noConsoleErrors fails the test on the page's console errors.
func noConsoleErrors(t *testing.T, b *browser) {
	t.Helper()
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// gridCells reads the texts of the Tune grid's cells.
func gridCells(t *testing.T, b *browser) []string {
	t.Helper()
	var cells []string
	b.run(t, chromedp.Evaluate(`Array.from(document.querySelectorAll("#cv-grid tbody td")).map(td => td.textContent.trim())`, &cells))
	return cells
}

// TestTuneGPCRunsWithoutOptimisation: a GPC whose "Optimise
// hyper-parameters" is on re-learns θ and ℓ in every fit, so a grid over
// them only moves the optimiser's start and every cell scored alike (all 25
// "0.793 ± 0.064"). Tune says so, runs the grid with the optimisation off
// (the cells then differ), labels rows and columns as the form does, and
// "Apply the best cell" turns the optimisation off so the fit shown is the
// cell chosen.
func TestTuneGPCRunsWithoutOptimisation(t *testing.T) {
	b := runTune(t, "/?data=gen:lupi2d&n=80&noise=0.2&seed=1&train=70&model=gpc&view=tune", 3, 3)
	note := b.jsString(t, `(document.getElementById("tune-optimise")||{}).textContent`)
	if !strings.Contains(note, "Optimise hyper-parameters") || !strings.Contains(note, "off") {
		t.Errorf("no notice that the grid runs with the optimisation off: %q", note)
	}
	best := b.waitText(t, "#cv-best", 3*time.Minute, func(s string) bool { return strings.HasPrefix(s, "Best:") })
	t.Logf("best: %s", best)
	cells := gridCells(t, b)
	distinct := map[string]bool{}
	for _, c := range cells {
		distinct[c] = true
	}
	t.Logf("cells: %v", cells)
	if len(cells) != 9 || len(distinct) < 3 {
		t.Errorf("the 3×3 grid's cells should differ once θ and ℓ are used as given: %v", cells)
	}
	if !strings.Contains(best, "f amplitude θ = ") || !strings.Contains(best, "f length-scale ℓ = ") || !strings.Contains(best, "optimisation off") {
		t.Errorf("best line: %q, want the form's labels and that the optimisation was off", best)
	}
	caption := b.text(t, "#cv-grid caption")
	if !strings.Contains(caption, "cross-validated accuracy; rows f amplitude θ, columns f length-scale ℓ") {
		t.Errorf("caption: %q", caption)
	}
	if h := b.text(t, "#cv-grid thead th"); h != `f amplitude θ \ f length-scale ℓ` {
		t.Errorf("corner header: %q", h)
	}
	b.run(t, chromedp.Click("#cv-apply", chromedp.ByID))
	b.waitJS(t, `document.getElementById("p-gpc-optimize") && !document.getElementById("p-gpc-optimize").checked`, 20*time.Second)
	b.waitFresh(t, 2*time.Minute)
	noConsoleErrors(t, b)
}

// TestTuneCancelKeepsFinishedCells: cancelling a grid marks the cells that
// had not finished "cancelled" (not "failed"), keeps the finished ones'
// numbers, and the caption names the metric while the grid runs.
func TestTuneCancelKeepsFinishedCells(t *testing.T) {
	b := runTune(t, "/?data=gen:moons&n=3000&noise=0.45&seed=5&train=70&model=svm&view=tune", 7, 5)
	b.waitJS(t, `document.getElementById("cv-grid")`, 20*time.Second)
	if c := b.text(t, "#cv-grid caption"); !strings.Contains(c, "5-fold cross-validated accuracy; rows C") {
		t.Errorf("caption while the grid runs: %q", c)
	}
	// Cancel once a cell or two are done.
	b.waitJS(t, `/^[1-9]\d* of 49 cells done/.test((document.getElementById("tune-progress")||{}).textContent||"")`, 3*time.Minute)
	b.run(t, chromedp.Click("#tune-cancel", chromedp.ByID))
	b.waitText(t, "#tune-error", time.Minute, func(s string) bool { return s == "Grid search cancelled." })
	b.waitJS(t, `!document.getElementById("tune-cancel")`, time.Minute)
	cells := gridCells(t, b)
	var done, cancelled, failed int
	for _, c := range cells {
		switch {
		case c == "cancelled":
			cancelled++
		case c == "failed":
			failed++
		case strings.Contains(c, "±"):
			done++
		}
	}
	t.Logf("%d cells: %d done, %d cancelled, %d failed", len(cells), done, cancelled, failed)
	if len(cells) != 49 || done == 0 || cancelled == 0 || failed != 0 || done+cancelled != 49 {
		t.Errorf("after a cancel: %d cells, %d with numbers, %d cancelled, %d failed; want finished ones kept and the rest cancelled", len(cells), done, cancelled, failed)
	}
	if c := b.text(t, "#cv-grid caption"); !strings.Contains(c, "cross-validated accuracy;") {
		t.Errorf("caption after the cancel: %q", c)
	}
	noConsoleErrors(t, b)
}

// TestRedoClearedByDatasetChange: an undone edit cannot be redone on
// another dataset (Redo used to stay enabled and apply the edit, "x201",
// to the new data).
func TestRedoClearedByDatasetChange(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 1000)
	b.open(t, url+"/?data=gen:moons&n=200&noise=0.2&seed=1&train=70&model=svm&edits=a0.5%2C0.5%2C0%3Ba0.6%2C0.4%2C0%3Bx201")
	b.waitJS(t, `document.getElementById("undo") && !document.getElementById("undo").disabled`, time.Minute)
	b.run(t, chromedp.Click("#undo", chromedp.ByID))
	b.waitJS(t, `!document.getElementById("redo").disabled`, 20*time.Second)
	b.choose(t, "dataset", "gen:lupi2d")
	b.waitJS(t, `new URLSearchParams(location.search).get("data") === "gen:lupi2d"`, 20*time.Second)
	b.waitJS(t, `document.getElementById("redo")`, 20*time.Second)
	if d := b.jsString(t, `document.getElementById("redo").disabled`); d != "true" {
		t.Errorf("Redo is enabled after the dataset changed")
		b.run(t, chromedp.Click("#redo", chromedp.ByID))
		time.Sleep(time.Second)
	}
	if e := b.jsString(t, `new URLSearchParams(location.search).get("edits")`); e != "" {
		t.Errorf("the new dataset got edits %q", e)
	}
	// The same data again: its edits were reset, so nothing to redo either.
	b.choose(t, "dataset", "gen:moons")
	b.waitJS(t, `new URLSearchParams(location.search).get("data") === "gen:moons"`, 20*time.Second)
	if d := b.jsString(t, `document.getElementById("redo").disabled`); d != "true" {
		t.Errorf("Redo is enabled on the regenerated data")
	}
	// Undo and redo still work on data of their own.
	b.open(t, url+"/?data=gen:moons&n=200&noise=0.2&seed=1&train=70&model=svm&edits=a0.5%2C0.5%2C0%3Bx3")
	b.waitJS(t, `document.getElementById("undo") && !document.getElementById("undo").disabled`, time.Minute)
	b.run(t, chromedp.Click("#undo", chromedp.ByID))
	b.waitJS(t, `!document.getElementById("redo").disabled && new URLSearchParams(location.search).get("edits") === "a0.5,0.5,0"`, 20*time.Second)
	b.setInput(t, "trainpct", "60") // the split does not touch the edits
	b.waitJS(t, `new URLSearchParams(location.search).get("train") === "60"`, 20*time.Second)
	b.run(t, chromedp.Click("#redo", chromedp.ByID))
	b.waitJS(t, `new URLSearchParams(location.search).get("edits") === "a0.5,0.5,0;x3"`, 20*time.Second)
	noConsoleErrors(t, b)
}

// TestPapersTablesRenderBold: the experiments' tables mark the best cell
// with Markdown's **…**; the page shows it bold, with no asterisks.
func TestPapersTablesRenderBold(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 1000)
	b.run(t, chromedp.Navigate(url+"/?tab=papers"), chromedp.WaitVisible("#exp-run-gpcplus", chromedp.ByID))
	b.waitJS(t, `!document.getElementById("exp-run-gpcplus").disabled`, time.Minute)
	b.run(t, chromedp.Click("#exp-run-gpcplus", chromedp.ByID))
	b.waitJS(t, `document.getElementById("exp-gpcplus-table") && document.getElementById("exp-gpcplus-paper")`, 5*time.Minute)
	var got struct {
		Stars  int      `json:"stars"`
		Strong []string `json:"strong"`
		Paper  int      `json:"paper"`
	}
	b.run(t, chromedp.Evaluate(`(() => {
		const sec = document.getElementById("exp-gpcplus");
		const cells = Array.from(sec.querySelectorAll("td, p"));
		return {stars: cells.filter(c => c.textContent.includes("**")).length,
			strong: Array.from(document.querySelectorAll("#exp-gpcplus-table td strong")).map(s => s.textContent),
			paper: document.querySelectorAll("#exp-gpcplus-paper td strong").length};
	})()`, &got))
	t.Logf("bold cells: ours %v, the paper's %d", got.Strong, got.Paper)
	if got.Stars != 0 {
		t.Errorf("%d cells or notes show raw ** Markdown", got.Stars)
	}
	if len(got.Strong) == 0 || got.Paper == 0 {
		t.Errorf("no bold cell in our table (%v) or the paper's (%d)", got.Strong, got.Paper)
	}
	for _, s := range got.Strong {
		if !strings.Contains(s, "±") {
			t.Errorf("bold cell %q is not a mean ± sd", s)
		}
	}
}

// TestUploadTextClassColumn: a CSV whose header names no class column but
// has a column of text gets that column proposed as the class; set back to
// a feature, the error says what to do; a file of one class says what the
// user can do (it named an option, AllowOneClass, the page does not have).
func TestUploadTextClassColumn(t *testing.T) {
	url := startServer(t)
	b := newBrowser(t, 1280, 900)
	openApp(t, b, url)
	dir := t.TempDir()

	one := filepath.Join(dir, "lupiprobe-oneclass.csv")
	os.WriteFile(one, []byte("x1,x2,label\n1,2,a\n3,1,a\n2,2,a\n"), 0o644)
	b.upload(t, "#upload-input", one)
	b.waitJS(t, `(document.getElementById("upload-error")||{}).textContent?.includes("only one class")`, 20*time.Second)
	e := b.errorText(t, "upload-error")
	t.Logf("one class: %s", e)
	if strings.Contains(e, "AllowOneClass") || !strings.Contains(e, "class column") {
		t.Errorf("one-class message %q should say what the user can do, not name an API option", e)
	}

	pets := filepath.Join(dir, "lupiprobe-pets.csv")
	os.WriteFile(pets, []byte("x1,x2,species\n1,2,dog\n3,1,cat\n2,2,dog\n0,1,cat\n"), 0o644)
	b.upload(t, "#upload-input", pets)
	b.waitJS(t, `(document.querySelector('label[for="role-2"]')||{}).textContent === "species"`, 20*time.Second)
	if r := b.jsString(t, `document.getElementById("role-2").value`); r != "class" {
		t.Errorf("role proposed for the text column species: %q, want class", r)
	}
	b.choose(t, "role-2", "main")
	b.waitJS(t, `(document.getElementById("upload-error")||{}).textContent?.includes("not a number")`, 20*time.Second)
	if e := b.errorText(t, "upload-error"); !strings.Contains(e, `column "species"`) || !strings.Contains(e, "“class”") {
		t.Errorf("a text column as a feature: %q should say to set its role to class", e)
	} else {
		t.Logf("text column as a feature: %s", e)
	}
	b.choose(t, "role-2", "class")
	b.waitJS(t, `(document.getElementById("upload-summary")||{}).textContent?.includes("2 classes")`, 20*time.Second)
	if e := b.errorText(t, "upload-error"); e != "" {
		t.Errorf("error with species as the class: %s", e)
	}
	noConsoleErrors(t, b)
}
