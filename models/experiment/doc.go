// Package experiment is the harness of the papers' experiments and the
// registry that holds them. Each paper's experiment lives in a package of its
// own below this one (svm2plus, mpwtsvm, gpcplus, jointsvm) and registers
// itself; the CLI runs it in full (`lupi experiment NAME`, `-j N` tasks at
// once) and the app at a browser-sized scale (Config.Quick), with the same
// code.
//
// # Plan, tasks, aggregation
//
// An experiment is not one long function but a plan of independent tasks:
//
//   - Plan(env, done) returns the tasks that are ready given every task
//     finished so far (none at first): those whose inputs are known and
//     that have not finished — one repeat × one grid cell, say, and once a
//     repeat's cells are done, that repeat's final fit at the parameters
//     they chose. It is a function of the finished tasks, and a task it
//     returns it keeps returning (same ID, seed, descriptor) until that
//     task has finished, so a caller may call it while tasks run and skip
//     the IDs it has handed out. Nothing ready and nothing running: the
//     plan is complete.
//   - A Task is serialisable: an ID (unique in the run), a seed and a
//     descriptor (Spec, JSON) that hold everything it needs besides the
//     experiment's name and settings (Config) and the shipped datasets
//     (Config.FS or Config.DataDir). Running it (Env.RunTask) gives a Done:
//     the task's output as JSON, and its timings apart (Done.Timing), so
//     that the output is the same on any machine.
//   - Aggregate(env, done) turns the finished tasks into the Result; it
//     looks tasks up by ID, never by the order they finished in.
//
// Experiment.Run drives this loop natively (RunPlan), Config.Jobs tasks at
// a time on goroutines: it calls Plan again when a task finishes and starts
// the tasks in the order they became ready, so a method's final fit does
// not wait for the end of another method's grid. Each task's stage
// (Done.Stage: 0 for what Plan returns first, k for what it returns once
// stages 0 … k−1 are done) and the order of the finished tasks are those of
// a stage-by-stage run, whatever the order tasks finished in (Env.Ordered);
// Env.Project replays a run's task times on more workers with the same
// scheduler. The browser runs the same loop with a pool of Web Workers: the
// page (or a coordinating worker) calls Plan, posts each Task's JSON to an
// idle worker, which calls RunTaskJSON with the experiment's name and the
// Config (settings, FS with the datasets) and posts the Done's JSON back;
// once the tasks it handed out are done, Plan again (stage by stage, as
// every call costs a message with all the finished tasks); at the end
// Aggregate. The result is identical
// whatever the number of workers and the order tasks finish in: every task
// carries its seeds, and aggregation is deterministic. A task may reuse work
// that another task of the same Env did (Memo: the split of a repeat, the
// folds of a training part); a worker keeps one Env per job for that, and a
// fresh Env gives the same results, only slower.
//
// # The shared pieces
//
// Settings are declared like model parameters (Setting: kind, default,
// browser-sized default, range) and validated before anything runs; Env's
// getters read them typed. Cells, Axis and Best are the grid search every
// experiment selects parameters with, and CV is the k-fold cross-validation
// grid search behind the app's Tune and `lupi tune` (one cell = one task).
// Summary statistics (mean ± sd) are stats.MeanSD; CPU times come from
// package cputime (per goroutine, so timing holds with Jobs > 1).
package experiment
