package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"

	"lupilab/models/experiment"
)

// cmdExperiment runs a paper's experiment (or lists them).
func cmdExperiment(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return usageError{"experiment: name required (lupi experiment list)"}
	}
	name := args[0]
	if name == "list" {
		if len(args) > 1 {
			return usageError{"experiment list takes no arguments"}
		}
		type entry struct {
			Name     string               `json:"name"`
			Title    string               `json:"title"`
			Paper    string               `json:"paper"`
			Settings []experiment.Setting `json:"settings"`
			Repeats  [2]int               `json:"repeats"`
		}
		list := []entry{}
		for _, e := range experiment.All() {
			list = append(list, entry{e.Name, e.Title, e.Paper, e.Settings, e.Repeats})
		}
		sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
		return writeJSON(stdout, list)
	}
	if strings.HasPrefix(name, "-") {
		return usageError{"experiment: the name comes first: lupi experiment NAME [flags]"}
	}
	fs := newFlags("experiment")
	quick := fs.Bool("quick", false, "browser-sized run")
	seed := fs.Int64("seed", 1, "seed for splits and folds")
	repeats := fs.Int("repeats", 0, "number of repeats (0 = the protocol's)")
	dir := fs.String("data", "web/datasets", "directory of the shipped datasets")
	jobs := fs.Int("j", runtime.NumCPU(), "tasks run at once")
	timing := fs.Bool("timing", true, "measure times (false: no clock is read and the output depends on the settings alone)")
	jsonPath := fs.String("json", "", "also write the result as JSON to this file")
	mdPath := fs.String("md", "", "also write the markdown to this file")
	tasksPath := fs.String("tasks", "", "also write every finished task (descriptor, output, timings) as JSON to this file")
	projectPath := fs.String("project", "", "do not run: read a -tasks FILE of a run with the same settings and print, as JSON, the wall time its tasks would take on -j workers (the runner's own scheduler on a simulated clock)")
	sets := setFlags{}
	fs.Var(sets, "set", "experiment setting name=value (repeatable)")
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	if *repeats < 0 {
		return usageError{"experiment: -repeats must be ≥ 0"}
	}
	if *jobs < 1 {
		return usageError{"experiment: -j must be ≥ 1"}
	}
	e, err := experiment.Lookup(name)
	if err != nil {
		return err
	}
	env, err := experiment.NewEnv(e, experiment.Config{Quick: *quick, Repeats: *repeats, Seed: *seed, DataDir: *dir, Args: sets, Jobs: *jobs, NoTiming: !*timing})
	if err != nil {
		return err
	}
	if *projectPath != "" {
		return projectExperiment(env, *projectPath, *jobs, stdout)
	}
	done, err := env.RunPlan(ctx)
	if err != nil {
		return fmt.Errorf("experiment %s: %w", name, err)
	}
	res, err := env.Aggregate(done)
	if err != nil {
		return fmt.Errorf("experiment %s: %w", name, err)
	}
	md := res.Markdown()
	if *jsonPath != "" {
		if err := writeJSONFile(*jsonPath, res); err != nil {
			return err
		}
	}
	if *tasksPath != "" {
		if err := writeJSONFile(*tasksPath, done); err != nil {
			return err
		}
	}
	if *mdPath != "" {
		if err := os.WriteFile(*mdPath, []byte(md), 0o644); err != nil {
			return err
		}
	}
	_, err = fmt.Fprint(stdout, md)
	return err
}

// projectExperiment prints the wall time the tasks recorded in path would
// take on jobs workers (experiment.Env.Project), beside their total.
func projectExperiment(env *experiment.Env, path string, jobs int, stdout io.Writer) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var tasks []experiment.Done
	if err := json.Unmarshal(b, &tasks); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	total := 0.0
	for _, d := range tasks {
		total += d.Timing["task_wall"]
	}
	wall, err := env.Project(tasks, jobs)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]any{"workers": jobs, "tasks": len(tasks), "task_seconds": total, "seconds": wall}
	if wall > 0 {
		out["speedup"] = total / wall
	}
	return writeJSON(stdout, out)
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
