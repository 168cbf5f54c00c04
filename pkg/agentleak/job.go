package agentleak

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
)

// ScorerKey is the scorer key of every result an AgentLeak scan records.
const ScorerKey = "agentrisk"

// DefaultEvaluationKey is used when neither a flag nor the config's
// project name gives one.
const DefaultEvaluationKey = "agentleak"

// Input is one trace source: a file path, or "-" for Reader.
type Input struct {
	Path    string    // file path; "-" reads Reader
	Display string    // name in messages
	Reader  io.Reader // used when Path is "-"
}

// Job is one scan over several inputs.
type Job struct {
	Scanner   *Scanner
	KeepGoing bool // report a bad trace and scan the others
	Collect   bool // keep each trace's metrics in Summary.Results (for the store)
	Workers   int  // scanning goroutines; 0 or 1 scans in the caller's goroutine
	// OnResult receives every result in input order (raw values still in
	// the findings); an error stops the scan.
	OnResult func(*Result) error
}

// Summary is what a job saw.
type Summary struct {
	Traces  int
	Blocked int
	Results []TraceMetrics // one per scanned trace, in order (when Collect)
	Diags   diag.List      // bad traces (with KeepGoing)
}

// TraceMetrics are the metric values of one trace as recorded in the store.
type TraceMetrics struct {
	ScenarioID string
	RunID      string
	Metrics    map[string]float64
}

// ExpandInputs turns command-line paths into inputs: "-" is stdin, a glob
// is expanded, a folder contributes its *.jsonl and *.json files.
func ExpandInputs(args []string, stdin io.Reader, rel func(string) string) ([]Input, error) {
	var out []Input
	for _, a := range args {
		if a == "-" {
			out = append(out, Input{Path: "-", Display: "<stdin>", Reader: stdin})
			continue
		}
		paths, err := expandPath(a)
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			out = append(out, Input{Path: p, Display: rel(p)})
		}
	}
	return out, nil
}

func expandPath(a string) ([]string, error) {
	return expandFiles(a, "trace", []string{"*.jsonl", "*.json"})
}

// expandFiles expands one argument: a file, a glob, or a folder (its files
// matching exts, which must hold at least one). what names the files in
// messages.
func expandFiles(a, what string, exts []string) ([]string, error) {
	matches := []string{a}
	if strings.ContainsAny(a, "*?[") {
		m, err := filepath.Glob(a)
		if err != nil {
			return nil, diag.Usagef("bad pattern %q: %v", a, err)
		}
		if len(m) == 0 {
			return nil, diag.Invalidf("%s: no %s file matches", a, what)
		}
		matches = m
	}
	var out []string
	for _, p := range matches {
		st, err := os.Stat(p)
		if err != nil {
			return nil, diag.Invalidf("%s: %v", p, errors.Unwrap(err))
		}
		if st.IsDir() {
			var files []string
			for _, ext := range exts {
				m, _ := filepath.Glob(filepath.Join(p, ext))
				files = append(files, m...)
			}
			sort.Strings(files)
			if len(files) == 0 {
				return nil, diag.Invalidf("%s: no %s %s files in the folder", p, strings.Join(exts, " or "), what)
			}
			out = append(out, files...)
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

// Run scans every input. Without KeepGoing the first bad trace ends the
// scan with a diag.Invalid error; with it, bad traces are collected in
// Summary.Diags and the others are still scanned. With Workers > 1 traces
// are decoded by one goroutine and scanned by Workers goroutines; results
// still reach OnResult one at a time and in input order.
func (j *Job) Run(ctx context.Context, inputs []Input) (*Summary, error) {
	sum := &Summary{}
	var final error
	// handle takes one outcome in input order; false stops the scan.
	handle := func(it item) bool {
		if err := ctx.Err(); err != nil {
			final = diag.Internal(err)
			return false
		}
		if it.err == nil {
			res := it.res
			sum.Traces++
			if res.Blocked {
				sum.Blocked++
			}
			if j.Collect {
				sum.Results = append(sum.Results, TraceMetrics{ScenarioID: res.ScenarioID, RunID: res.RunID, Metrics: Metrics(res)})
			}
			if j.OnResult != nil {
				if err := j.OnResult(res); err != nil {
					final = err
					return false
				}
			}
			return true
		}
		var te *TraceError
		var de *diag.Error
		switch {
		case errors.As(it.err, &te):
			sum.Diags = append(sum.Diags, te.Diag)
			if !j.KeepGoing {
				final = diag.Invalid(sum.Diags)
				return false
			}
			return true
		case errors.As(it.err, &de):
			final = it.err
		default:
			final = diag.Internal(fmt.Errorf("%s: %w", it.file, it.err))
		}
		return false
	}
	if j.Workers > 1 {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		next := j.parallel(ctx, inputs)
		for {
			it, ok := next()
			if !ok || !handle(it) {
				break
			}
		}
	} else {
		traces(inputs, func(t *Trace, err error, file string) bool {
			if err != nil {
				return handle(item{err: err, file: file})
			}
			res, err := j.Scanner.Scan(t)
			return handle(item{res: res, err: err, file: file})
		})
	}
	if final != nil {
		return sum, final
	}
	if len(sum.Diags) > 0 {
		return sum, diag.Invalid(sum.Diags)
	}
	return sum, nil
}

// item is one trace's outcome: a result, or the error that stopped it.
type item struct {
	res  *Result
	err  error
	file string
}

// traces calls fn for every trace (or error) of the inputs, in order, until
// fn returns false.
func traces(inputs []Input, fn func(t *Trace, err error, file string) bool) {
	for _, in := range inputs {
		r := in.Reader
		if in.Path != "-" {
			f, err := os.Open(in.Path)
			if err != nil {
				fn(nil, diag.Invalidf("%s: %v", in.Display, errors.Unwrap(err)), in.Display)
				return
			}
			r = f
			defer f.Close()
		}
		tr := NewTraceReader(in.Display, r)
		for {
			t, err := tr.Next()
			if err == io.EOF {
				break
			}
			if !fn(t, err, in.Display) {
				return
			}
		}
	}
}

func (j *Job) parallel(ctx context.Context, inputs []Input) func() (item, bool) {
	type work struct {
		t    *Trace
		slot chan item
	}
	order := make(chan chan item, 4*j.Workers)
	jobs := make(chan work, 2*j.Workers)
	go func() {
		defer close(order)
		defer close(jobs)
		traces(inputs, func(t *Trace, err error, file string) bool {
			slot := make(chan item, 1)
			if err != nil {
				slot <- item{err: err, file: file}
			} else {
				select {
				case jobs <- work{t, slot}:
				case <-ctx.Done():
					return false
				}
			}
			select {
			case order <- slot:
				return true
			case <-ctx.Done():
				return false
			}
		})
	}()
	for w := 0; w < j.Workers; w++ {
		sc := j.Scanner.clone()
		go func() {
			for wk := range jobs {
				res, err := sc.Scan(wk.t)
				wk.slot <- item{res: res, err: err, file: wk.t.File}
			}
		}()
	}
	return func() (item, bool) {
		slot, ok := <-order
		if !ok {
			return item{}, false
		}
		return <-slot, true
	}
}

// Metrics are the metric values recorded for one trace: risk_index,
// privacy_score, leaked_secrets, blocked (0/1), leak_rate_<channel> for
// every channel (its share of the audited vault that leaked there) and
// leaks_<data_type> for every data type that leaked (its leaked findings;
// types that did not leak are left out).
func Metrics(r *Result) map[string]float64 {
	m := map[string]float64{
		"risk_index":     r.RiskIndex,
		"privacy_score":  float64(r.PrivacyScore),
		"leaked_secrets": float64(r.LeakedSecrets),
		"blocked":        0,
	}
	if r.Blocked {
		m["blocked"] = 1
	}
	for _, ch := range Channels {
		if !isBaseline(ch) {
			m["leak_rate_"+ch] = 0
		}
	}
	for _, c := range r.RIByChannel {
		m["leak_rate_"+c.Channel] = c.RI
	}
	for _, f := range r.Findings {
		if f.Leaked {
			m[LeaksMetricPrefix+f.DataType]++
		}
	}
	return m
}

// LeaksMetricPrefix starts the metric that counts one data type's leaked
// findings in a trace.
const LeaksMetricPrefix = "leaks_"

// BuildRun turns a collected scan into one evaluation run: a result per
// trace, task specification keys from TaskKeys.
func BuildRun(evaluationKey string, now time.Time, sum *Summary) model.EvaluationRun {
	h := sha256.New()
	fmt.Fprintf(h, "%s %d", evaluationKey, now.UnixNano())
	for _, r := range sum.Results {
		fmt.Fprintf(h, " %s/%s", r.ScenarioID, r.RunID)
	}
	id := "scan-" + now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(h.Sum(nil))[:6]
	run := model.EvaluationRun{EvaluationKey: evaluationKey, ID: id, CreatedAt: now.UTC(), Status: model.StatusCompleted}
	var keys TaskKeys
	for _, r := range sum.Results {
		run.Results = append(run.Results, model.Result{TaskSpecificationKey: keys.Next(r.ScenarioID, r.RunID), ScorerKey: ScorerKey, Metrics: r.Metrics})
	}
	return run
}

// RunHead names the run a scan is recorded as before it starts, so results
// can be streamed into the store: `scan-<UTC time>-<hash>`, the hash over
// the evaluation key, the time and the inputs.
func RunHead(evaluationKey string, now time.Time, inputs []Input) model.EvaluationRun {
	h := sha256.New()
	fmt.Fprintf(h, "%s %d", evaluationKey, now.UnixNano())
	for _, in := range inputs {
		fmt.Fprintf(h, " %s", in.Display)
	}
	id := "scan-" + now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(h.Sum(nil))[:6]
	return model.EvaluationRun{EvaluationKey: evaluationKey, ID: id, CreatedAt: now.UTC(), Status: model.StatusCompleted}
}

// TaskKeys gives each trace of a scan its task specification key: the
// scenario id, and for a scenario id seen again in the same scan
// `<scenario_id>@<run_id>` (then `#2`, ...), so the traces stay apart.
type TaskKeys struct {
	used map[string]bool
}

// Next returns the key for the next trace.
func (k *TaskKeys) Next(scenarioID, runID string) string {
	if k.used == nil {
		k.used = map[string]bool{}
	}
	key := scenarioID
	if k.used[key] {
		key = scenarioID + "@" + runID
		for n := 2; k.used[key]; n++ {
			key = fmt.Sprintf("%s@%s#%d", scenarioID, runID, n)
		}
	}
	k.used[key] = true
	return key
}

// ResultOf is the evaluation-run result recorded for one scanned trace.
func ResultOf(taskKey string, r *Result) model.Result {
	return model.Result{TaskSpecificationKey: taskKey, ScorerKey: ScorerKey, Metrics: Metrics(r)}
}

// ExpandVaultPaths expands a vault argument: a file, a glob, or a folder
// (its *.yaml, *.yml and *.json files).
func ExpandVaultPaths(a string) ([]string, error) {
	return expandFiles(a, "vault", []string{"*.yaml", "*.yml", "*.json"})
}
