package browsertest

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"lupilab/app"
	"lupilab/models/data"
)

// The model exported from the browser, applied by the CLI (`lupi predict`)
// to the same samples (the results CSV's features, as the model saw them),
// predicts what the app predicted; the plot exports as a PNG; and the
// exported model imports back into the app.
func TestExportModelMatchesCLI(t *testing.T) {
	dir := t.TempDir()
	lupi := buildLupi(t, dir)

	url := startServer(t)
	b := newBrowser(t, 1280, 1000)
	openApp(t, b, url)
	rec := recordNetwork(t, b)

	acc, resultsCSV := trainAndExportCSV(t, b, func(h string) bool { return strings.Contains(h, "x:") })
	t.Logf("default playground run: test accuracy %s", acc)
	if name := b.jsString(t, `window.__lupiLastDownload.name`); !strings.HasSuffix(name, "-results.csv") {
		t.Errorf("results download named %q", name)
	}
	modelPath := exportModel(t, b, dir)

	// The app's predictions and the features it fed the model.
	rows, err := csv.NewReader(strings.NewReader(resultsCSV)).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("results CSV: %v (%d rows)", err, len(rows))
	}
	col := map[string]int{}
	for j, h := range rows[0] {
		col[h] = j
	}
	dataPath := writeRawSamples(t, dir, rows[1:], col)
	checkCLIPredicts(t, lupi, modelPath, dataPath, rows[1:], col)

	checkPlotPNG(t, b)
	importBack(t, b, modelPath, acc)
	importBroken(t, b, dir)

	for _, q := range rec.all() {
		if q.Method != "GET" && q.Method != "HEAD" || q.HasPostData {
			t.Errorf("export/import sent %s %s", q.Method, q.URL)
		}
	}
	b.screenshot(t, "export-import")
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// buildLupi builds the CLI into dir.
func buildLupi(t *testing.T, dir string) string {
	t.Helper()
	lupi := filepath.Join(dir, "lupi")
	build := exec.Command("go", "build", "-o", lupi, "./cmd/lupi")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building lupi: %v\n%s", err, out)
	}
	return lupi
}

// exportModel downloads the fitted model, checks it is a versioned LUPI
// Lab model file, and saves it in dir.
func exportModel(t *testing.T, b *browser, dir string) string {
	t.Helper()
	b.run(t, chromedp.Evaluate(`window.__lupiLastDownloadText = ""`, nil), chromedp.Click("#export-model", chromedp.ByID))
	b.waitJS(t, `window.__lupiLastDownloadText`, 10*time.Second)
	modelJSON := b.jsString(t, `window.__lupiLastDownloadText`)
	name := b.jsString(t, `window.__lupiLastDownload.name`)
	size := b.jsString(t, `window.__lupiLastDownload.size`)
	if !strings.HasSuffix(name, ".lupi.json") || size != strconv.Itoa(len(modelJSON)) {
		t.Errorf("model download %q, size %s for %d bytes", name, size, len(modelJSON))
	}
	var env struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
		Model   string `json:"model"`
	}
	if err := json.Unmarshal([]byte(modelJSON), &env); err != nil || env.Format != "lupilab-model" || env.Version < 1 {
		t.Fatalf("exported model is not a versioned LUPI Lab model (%v): %.200s", err, modelJSON)
	}
	modelPath := filepath.Join(dir, name)
	os.WriteFile(modelPath, []byte(modelJSON), 0o644)
	return modelPath
}

// writeRawSamples writes the raw features of the results CSV's rows, in
// their order, with their true labels: the exported model carries the
// scaling fitted in the app, so the CLI gets the raw features — the same
// generated data and split, rebuilt here.
func writeRawSamples(t *testing.T, dir string, rows [][]string, col map[string]int) string {
	t.Helper()
	// the first visit's data (openApp opens "/")
	d := app.DefaultSettings()
	ds, err := data.GenerateByName(strings.TrimPrefix(d.Source, "gen:"), d.N, d.Noise, d.Seed)
	if err != nil {
		t.Fatal(err)
	}
	rawTrain, rawTest, err := data.StratifiedSplit(ds, float64(d.TrainPct)/100, d.Seed)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	w := csv.NewWriter(&sb)
	w.Write([]string{"x_1", "x_2", "label"})
	ti, si := 0, 0
	for _, r := range rows {
		src, k := rawTrain, ti
		if r[col["split"]] == "test" {
			src, k = rawTest, si
			si++
		} else {
			ti++
		}
		w.Write([]string{strconv.FormatFloat(src.X.At(k, 0), 'g', -1, 64), strconv.FormatFloat(src.X.At(k, 1), 'g', -1, 64), r[col["true"]]})
	}
	w.Flush()
	dataPath := filepath.Join(dir, "samples.csv")
	os.WriteFile(dataPath, []byte(sb.String()), 0o644)
	return dataPath
}

// checkCLIPredicts runs `lupi predict` with the exported model on the raw
// samples: every label, and every decision to 1e-9 relative, must be the
// app's.
func checkCLIPredicts(t *testing.T, lupi, modelPath, dataPath string, rows [][]string, col map[string]int) {
	t.Helper()
	out, err := exec.Command(lupi, "predict", "-model-file", modelPath, "-data", dataPath).Output()
	if err != nil {
		t.Fatalf("lupi predict: %v", err)
	}
	var pred struct {
		Labels   []string  `json:"labels"`
		Decision []float64 `json:"decision"`
	}
	if err := json.Unmarshal(out, &pred); err != nil {
		t.Fatalf("lupi predict output: %v", err)
	}
	if len(pred.Labels) != len(rows) {
		t.Fatalf("lupi predicted %d rows, the app exported %d", len(pred.Labels), len(rows))
	}
	maxDiff, labelDiff := 0.0, 0
	for i, r := range rows {
		if pred.Labels[i] != r[col["predicted"]] {
			labelDiff++
		}
		if d, err := strconv.ParseFloat(r[col["decision"]], 64); err == nil && i < len(pred.Decision) {
			maxDiff = math.Max(maxDiff, math.Abs(d-pred.Decision[i])/math.Max(1, math.Abs(d)))
		}
	}
	t.Logf("%d samples: %d labels differ between app and lupi predict, largest decision difference %.3g", len(pred.Labels), labelDiff, maxDiff)
	if labelDiff > 0 || maxDiff > 1e-9 {
		t.Errorf("the CLI does not predict what the app predicted (%d labels, decision diff %g)", labelDiff, maxDiff)
	}
}

// checkPlotPNG exports the plot as a PNG.
func checkPlotPNG(t *testing.T, b *browser) {
	t.Helper()
	b.run(t, chromedp.Click("#export-png", chromedp.ByID))
	b.waitJS(t, `window.__lupiLastDownload && window.__lupiLastDownload.name.endsWith(".png")`, 10*time.Second)
	if n, _ := strconv.Atoi(b.jsString(t, `window.__lupiLastDownload.size`)); n < 1000 {
		t.Errorf("plot PNG is only %d bytes", n)
	} else {
		t.Logf("plot PNG: %d bytes", n)
	}
}

// importBack imports the exported model: the bar says "Imported …" (the
// playground may re-create the bar when it shows the imported model, and
// says so itself), and the metrics are the saved model's on the same
// split: the same test accuracy.
func importBack(t *testing.T, b *browser, modelPath, acc string) {
	t.Helper()
	b.upload(t, "#import-model", modelPath)
	b.waitJS(t, `document.body.textContent.includes("Imported")`, 20*time.Second)
	if e := b.errorText(t, "export-error") + b.errorText(t, "error"); e != "" {
		t.Errorf("import error: %s", e)
	}
	if got := b.waitText(t, "#m-test-acc", 20*time.Second, func(s string) bool { return strings.HasSuffix(s, "%") }); got != acc {
		t.Errorf("after importing the exported model the test accuracy is %s, it was %s", got, acc)
	}
	t.Logf("import: %s, test accuracy %s", b.text(t, "#metrics caption"), acc)
}

// importBroken imports a model file of an unknown version: an error shows.
func importBroken(t *testing.T, b *browser, dir string) {
	t.Helper()
	broken := filepath.Join(dir, "broken.lupi.json")
	os.WriteFile(broken, []byte(`{"format":"lupilab-model","version":99,"model":"svm"}`), 0o644)
	// The playground re-creates its result view (and this bar) when its
	// notice line appears or goes; let that settle, and retry once if the
	// bar that showed the error was replaced meanwhile (logged: it is a UX
	// bug of the parent's layout, not of the import).
	time.Sleep(1500 * time.Millisecond)
	const errShown = `(document.getElementById("export-error")||{}).textContent?.includes("version 99")`
	b.upload(t, "#import-model", broken)
	deadline := time.Now().Add(10 * time.Second)
	var shown bool
	for !shown && time.Now().Before(deadline) {
		b.run(t, chromedp.Evaluate(`!!(`+errShown+`)`, &shown))
		time.Sleep(100 * time.Millisecond)
	}
	if !shown {
		t.Logf("the import error did not show (the bar was likely re-created by a parent update); retrying once")
		b.upload(t, "#import-model", broken)
	}
	b.waitJS(t, errShown, 20*time.Second)
	t.Logf("broken model file: %s", b.errorText(t, "export-error"))
}
