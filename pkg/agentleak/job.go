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
	"strconv"
	"strings"
	"time"

	"github.com/lfcli/lf/pkg/agentleak/compliance"
	"github.com/lfcli/lf/pkg/agentleak/tracefile"
	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/kind"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/otelspans"
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
	// Spans says how a file of OpenTelemetry spans is read (detected from
	// the content unless a format is forced).
	Spans SpanOptions
}

// Job is one scan over several inputs.
type Job struct {
	Scanner   *Scanner
	KeepGoing bool // report a bad trace and scan the others
	Collect   bool // keep each trace's metrics in Summary.Results (for the store)
	Workers   int  // scanning goroutines; 0 or 1 scans in the caller's goroutine
	// Render, when set, turns each result into its output bytes (appended
	// to dst) on the goroutine that scanned it, so that results are
	// formatted in parallel too; they reach OnResult in Result.Output,
	// which is valid until OnResult returns. Render may change the result
	// (redact it) and must not keep dst.
	Render func(r *Result, dst []byte) []byte
	// OnResult receives every result in input order (raw values still in
	// the findings unless Render removed them); an error stops the scan.
	OnResult func(*Result) error
	// Transient promises that OnResult keeps nothing of a result (no
	// string, no slice) once it returns. With one worker the scan then
	// reads the input through one reused block of lines, since a result's
	// strings are views into its trace's line.
	Transient bool
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
// Summary.Diags and the others are still scanned. With Workers > 1 one
// goroutine splits the inputs into batches of traces and Workers goroutines
// decode, scan and render them; results still reach OnResult one at a time
// and in input order.
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
				// Copies, not views into the trace's line.
				sum.Results = append(sum.Results, TraceMetrics{ScenarioID: strings.Clone(res.ScenarioID), RunID: strings.Clone(res.RunID), Metrics: Metrics(res)})
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
		j.parallel(ctx, inputs, handle)
	} else {
		var events []Event
		var out []byte
		// A transient scan decodes every trace into this one: nothing
		// refers to a trace once its result is handled.
		var into *Trace
		if j.Transient {
			into = new(Trace)
		}
		j.Scanner.transient = j.Transient
		defer func() { j.Scanner.transient = false }()
		rawTraces(inputs, j.Transient, 1, func(rt *tracefile.RawTrace) bool {
			start := events
			it := j.process(j.Scanner, rt, into, &events, out[:0])
			if it.res != nil && j.Render != nil {
				out = it.res.Output // reused: the result is handled before the next one
			}
			ok := handle(it)
			if j.Transient {
				events = tracefile.Rewind(start, events)
			}
			return ok
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

// process decodes (into the trace into, when not nil), scans and renders
// one trace (rendered into dst).
func (j *Job) process(sc *Scanner, rt *tracefile.RawTrace, into *Trace, events *[]Event, dst []byte) item {
	t, err := rt.DecodeForScan(into, events)
	if err != nil {
		return item{err: err, file: rt.File}
	}
	res, err := sc.Scan(t)
	if err != nil {
		return item{err: err, file: rt.File}
	}
	if j.Render != nil {
		res.Output = j.Render(res, dst)
	}
	return item{res: res, file: rt.File}
}

// rawTraces calls fn for every trace (or error) of the inputs, in order,
// until fn returns false. JSONL lines are handed over undecoded; with
// reuse, a line's bytes are valid only until fn returns. Span files' lines
// are decoded by decoders goroutines (at least one).
func rawTraces(inputs []Input, reuse bool, decoders int, fn func(rt *tracefile.RawTrace) bool) {
	for _, in := range inputs {
		r := in.Reader
		if in.Path != "-" {
			f, err := os.Open(in.Path)
			if err != nil {
				fn(&tracefile.RawTrace{File: in.Display, Err: diag.Invalidf("%s: %v", in.Display, errors.Unwrap(err))})
				return
			}
			r = f
			defer f.Close()
		}
		r, format := spanInput(r, in.Spans)
		if format != otelspans.Auto {
			if !spanTraces(in, r, format, decoders, fn) {
				return
			}
			continue
		}
		tr := NewTraceReader(in.Display, r)
		tr.SetReuse(reuse)
		// One tracefile.RawTrace for the file, not one on the heap per trace: fn
		// keeps no pointer to it (parallel copies it into its batch).
		var rt tracefile.RawTrace
		for {
			var err error
			rt, err = tr.NextRaw()
			if err == io.EOF {
				break
			}
			if !fn(&rt) {
				return
			}
		}
	}
}

// batch is a run of consecutive traces scanned by one worker: a channel
// operation per batch instead of per trace, and a whole trace file's lines
// decoded in parallel rather than by the reading goroutine.
type batch struct {
	raws  []tracefile.RawTrace
	items []item
	out   []byte        // the batch's rendered results, one after another
	done  chan struct{} // closed when items are ready
}

// Batch bounds: small enough that the last batch does not leave the other
// workers idle for long, large enough that hand-overs are rare.
const (
	batchTraces = 32
	batchBytes  = 128 << 10
)

func (j *Job) parallel(ctx context.Context, inputs []Input, handle func(item) bool) {
	order := make(chan *batch, 4*j.Workers)
	jobs := make(chan *batch, 2*j.Workers)
	// Output buffers go back to the workers once their batch is handled
	// (OnResult keeps no result's Output): a new buffer per batch was a
	// visible share of the garbage.
	free := make(chan []byte, 8*j.Workers)
	go func() {
		defer close(order)
		defer close(jobs)
		b, size := &batch{}, 0
		send := func() bool {
			if len(b.raws) == 0 {
				return true
			}
			b.done = make(chan struct{})
			select {
			case jobs <- b:
			case <-ctx.Done():
				return false
			}
			select {
			case order <- b:
			case <-ctx.Done():
				return false
			}
			b, size = &batch{raws: make([]tracefile.RawTrace, 0, batchTraces)}, 0
			return true
		}
		ok := true
		rawTraces(inputs, false, j.Workers, func(rt *tracefile.RawTrace) bool {
			b.raws = append(b.raws, *rt)
			size += len(rt.Data)
			if len(b.raws) >= batchTraces || size >= batchBytes {
				ok = send()
			}
			return ok
		})
		if ok {
			send()
		}
	}()
	for w := 0; w < j.Workers; w++ {
		sc := j.Scanner.clone()
		go func() {
			var events []Event
			for b := range jobs {
				if j.Render != nil {
					select {
					case b.out = <-free:
					default:
					}
				}
				b.items = make([]item, len(b.raws))
				ends := make([]int, len(b.raws))
				for i := range b.raws {
					it := j.process(sc, &b.raws[i], nil, &events, b.out)
					if it.res != nil && j.Render != nil {
						b.out = it.res.Output
					}
					b.items[i], ends[i] = it, len(b.out)
				}
				// The results' bytes are cut from the batch's buffer only
				// now: appending may have moved it.
				start := 0
				for i := range b.items {
					if r := b.items[i].res; r != nil && j.Render != nil {
						r.Output = b.out[start:ends[i]:ends[i]]
					}
					start = ends[i]
				}
				b.raws = nil
				close(b.done)
			}
		}()
	}
	for b := range order {
		<-b.done
		for _, it := range b.items {
			if !handle(it) {
				return
			}
		}
		if b.out != nil {
			select {
			case free <- b.out[:0]:
			default:
			}
		}
	}
}

// Metrics are the metric values recorded for one trace: risk_index,
// privacy_score, leaked_secrets, blocked (0/1), leak_rate_<channel> for
// every channel (its share of the audited vault that leaked there),
// leaks_<data_type> for every data type that leaked (its leaked findings;
// types that did not leak are left out) and, unless compliance is off,
// compliance_controls_at_risk, compliance_frameworks_at_risk and
// compliance_at_risk_<framework> for every framework at risk (its controls
// at risk).
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
		if !tracefile.IsBaseline(ch) {
			m["leak_rate_"+ch] = 0
		}
	}
	for _, c := range r.RIByChannel {
		m["leak_rate_"+c.Channel] = c.RI
	}
	for _, f := range r.Findings {
		if f.Leaked {
			m[LeaksMetricPrefix+kind.KeyOf(f.DataType)]++ // a custom detector's data_type is free text
		}
	}
	if c := r.Compliance; c != nil {
		a := &c.Assessment
		m["compliance_controls_at_risk"] = float64(a.ControlsAtRisk)
		m["compliance_frameworks_at_risk"] = float64(a.FrameworksAtRisk)
		for i := range compliance.Frameworks {
			if n := a.ControlsAtRiskIn(i); n > 0 {
				m[ComplianceMetricPrefix+compliance.Frameworks[i].ID] = float64(n)
			}
		}
	}
	return m
}

// ComplianceMetricPrefix starts the metric that counts one framework's
// controls at risk in a trace.
const ComplianceMetricPrefix = "compliance_at_risk_"

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
// scenario id as a key (kind.KeyOf: other characters become '_'), and for
// a key seen again in the same scan `<scenario_id>__<run_id>` (then `-2`,
// `-3`, ...), so the traces stay apart and every key follows the key rule.
type TaskKeys struct {
	used map[string]bool
}

// Next returns the key for the next trace.
func (k *TaskKeys) Next(scenarioID, runID string) string {
	if k.used == nil {
		k.used = map[string]bool{}
	}
	key := kind.KeyOf(scenarioID)
	if k.used[key] {
		base := repeatKey(scenarioID, runID)
		key = base
		for n := 2; k.used[key]; n++ {
			key = numberedKey(base, n)
		}
	}
	k.used[key] = true
	return key
}

// repeatKey is the key of a trace whose scenario id's key is taken.
func repeatKey(scenarioID, runID string) string {
	return kind.KeyOf(scenarioID + "__" + runID)
}

// numberedKey is base with "-n", within the key length.
func numberedKey(base string, n int) string {
	suf := "-" + strconv.Itoa(n)
	if len(base)+len(suf) > kind.MaxKeyLength {
		base = base[:kind.MaxKeyLength-len(suf)]
	}
	return base + suf
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
