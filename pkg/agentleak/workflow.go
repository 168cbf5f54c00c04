package agentleak

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/kind"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
)

// errRecording stops a scan whose results the store refused (the store's
// error is reported instead).
var errRecording = errors.New("recording failed")

// ScanInputs is everything one AgentLeak scan needs, as `lf agentleak scan`
// and a run file's `agentleak:` entry give it. Paths are as the user wrote
// them (absolute, or relative to the current folder).
type ScanInputs struct {
	Config        string    // agentleak.yaml; "" scans with every channel and detector on
	Vaults        []string  // vault files, folders or globs
	Traces        []string  // trace files, folders or globs; "-" reads Stdin
	Stdin         io.Reader // for "-"
	Display       func(path string) string
	VaultKey      string // use this vault for every trace (default: the trace's scenario_id)
	EvaluationKey string // default: the config's project.name, else DefaultEvaluationKey
	KeepGoing     bool   // report bad traces and scan the others
	Workers       int    // traces scanned in parallel; 0 means one per CPU
	// SkipUnchanged keeps the latest recorded run when it was made from the
	// same inputs (same content hash) instead of scanning again.
	SkipUnchanged bool
	// OnResult sees every result in input order before it is recorded, raw
	// values still in the findings (a face redacts them before printing).
	OnResult func(*Result) error
	// Render, when set, formats each result on the goroutine that scanned
	// it (see Job.Render); OnResult finds the bytes in Result.Output.
	Render func(r *Result, dst []byte) []byte
	// Transient promises that OnResult keeps nothing of a result once it
	// returns (see Job.Transient); it takes effect when nothing is recorded.
	Transient bool
	Now       time.Time // the run's time; zero means time.Now()
	// Compliance is what each result carries of the compliance mapping;
	// the report's ComplianceTotals are counted whatever it is but off.
	Compliance ComplianceMode
}

// Scan statuses of a ScanReport.
const (
	ScanRecorded  = "recorded"   // a run was recorded
	ScanUnchanged = "unchanged"  // the inputs match the latest run, which is kept
	ScanNotStored = "not stored" // no store was given
	ScanEmpty     = "empty"      // the inputs hold no trace; nothing is recorded
)

// ScanReport is what a scan found.
type ScanReport struct {
	EvaluationKey string         `json:"evaluation_key"`
	Status        string         `json:"status"`
	RunID         string         `json:"run_id,omitempty"`
	Recorded      int            `json:"recorded"`
	Traces        int            `json:"traces"`
	Blocked       int            `json:"blocked"`
	BlockedIDs    []string       `json:"blocked_traces"`
	Verdicts      map[string]int `json:"verdicts,omitempty"`
	InputHash     string         `json:"input_hash,omitempty"`
	// Compliance counts, over the scanned traces, the frameworks and
	// controls put at risk (nil when compliance is off).
	Compliance *ComplianceTotals `json:"compliance,omitempty"`
	Warnings   diag.List         `json:"-"`
	Diags      diag.List         `json:"-"` // bad traces (with KeepGoing)
}

// ScanPlan is a scan whose config, vaults and trace list are loaded and
// checked: every usage and input problem shows before a store is opened.
type ScanPlan struct {
	in     ScanInputs
	cfg    *Config
	vaults *Vaults
	inputs []Input
	key    string
	hash   string // content hash of the inputs; "" when one is stdin
	// reportTime is the time full compliance sections are digested with.
	reportTime string
	Warnings   diag.List
}

// Prepare loads the config and vaults and expands the trace arguments.
func Prepare(in ScanInputs) (*ScanPlan, error) {
	if in.Display == nil {
		in.Display = func(p string) string { return p }
	}
	if in.Workers < 0 {
		return nil, diag.Usagef("workers must be at least 1, not %d", in.Workers)
	}
	if in.Workers == 0 {
		in.Workers = runtime.GOMAXPROCS(0)
	}
	p := &ScanPlan{in: in, cfg: DefaultConfig()}
	if in.Compliance == ComplianceFull {
		t, err := ReportTime()
		if err != nil {
			return nil, diag.Usagef("%v", err)
		}
		p.reportTime = t
	}
	var hashed []string
	if in.Config != "" {
		c, warns, err := LoadConfig(in.Config, in.Display(in.Config))
		if err != nil {
			return nil, err // the warnings are in the error's list
		}
		p.Warnings = append(p.Warnings, warns.Warnings()...)
		p.cfg = c
		hashed = append(hashed, in.Config)
	}
	if len(in.Vaults) > 0 {
		vs, paths, warns, err := loadVaultArgs(in.Vaults, in.Display)
		if err != nil {
			return nil, err
		}
		p.Warnings = append(p.Warnings, warns...)
		p.vaults = vs
		hashed = append(hashed, paths...)
	}
	if in.VaultKey != "" && !p.vaults.Has(in.VaultKey) {
		return nil, diag.Usagef("--vault %s: no vault with that key in the given vault files", in.VaultKey)
	}
	inputs, err := ExpandInputs(in.Traces, in.Stdin, in.Display)
	if err != nil {
		return nil, err
	}
	p.inputs = inputs
	p.key = in.EvaluationKey
	if p.key != "" {
		// The key the run is stored under: one that lf add refuses would
		// make the export impossible to add again.
		if err := kind.CheckKey("evaluation key", p.key); err != nil {
			return nil, diag.Usagef("%v", err)
		}
	}
	if p.key == "" {
		p.key = p.cfg.ProjectName
	}
	if p.key == "" {
		p.key = DefaultEvaluationKey
	}
	if in.SkipUnchanged {
		for _, t := range inputs {
			if t.Path == "-" {
				hashed = nil
				break
			}
			hashed = append(hashed, t.Path)
		}
		if hashed != nil {
			if p.hash, err = p.contentHash(hashed); err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}

// loadVaultArgs expands vault arguments (files, folders, globs) and loads
// them; it returns the files read and the warnings.
func loadVaultArgs(args []string, display func(string) string) (*Vaults, []string, diag.List, error) {
	var paths, displays []string
	for _, a := range args {
		ps, err := ExpandVaultPaths(a)
		if err != nil {
			return nil, nil, nil, err
		}
		for _, path := range ps {
			paths = append(paths, path)
			displays = append(displays, display(path))
		}
	}
	vs, warns, err := LoadVaults(paths, displays)
	if err != nil {
		return nil, nil, nil, err
	}
	return vs, paths, warns.Warnings(), nil
}

// scanHashVersion changes when the same inputs would scan differently (new
// detectors, new metrics), so that a new lf scans again.
const scanHashVersion = "agentleak-scan/3" // 3: fast-path fixes (key-name values, Unicode boundaries and digits, accented words)

// contentHash hashes what decides a scan's results: the evaluation key, the
// options and the bytes of the config, vault and trace files in order.
func (p *ScanPlan) contentHash(paths []string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", scanHashVersion, p.key, p.in.VaultKey)
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return "", diag.Invalidf("%s: %v", p.in.Display(path), err)
		}
		fmt.Fprintf(h, "%s\x00", p.in.Display(path))
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", diag.Invalidf("%s: %v", p.in.Display(path), err)
		}
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}

// EvaluationKey is the key the scan records its run under.
func (p *ScanPlan) EvaluationKey() string { return p.key }

// ScanStore is what a recording scan needs from a store: record its run,
// and read the latest run and its values back (to keep an unchanged scan).
type ScanStore interface {
	backend.RunRecorder
	backend.RunReader
}

// Scan loads the inputs and runs the scan (see ScanPlan.Run).
func Scan(ctx context.Context, in ScanInputs, st ScanStore) (*ScanReport, error) {
	p, err := Prepare(in)
	if err != nil {
		return nil, err
	}
	return p.Run(ctx, st)
}

// Run scans every trace and, with a store, records the scan as one
// evaluation run, streaming each trace's metrics to the store's run writer
// as it is scanned. A scan that fails (without KeepGoing) or finds no trace
// records nothing. The report comes back with the error when some traces
// were scanned. A nil st scans without recording.
func (p *ScanPlan) Run(ctx context.Context, st ScanStore) (*ScanReport, error) {
	rep := &ScanReport{EvaluationKey: p.key, Status: ScanNotStored, Verdicts: map[string]int{}, BlockedIDs: []string{}, InputHash: p.hash, Warnings: p.Warnings}
	if st != nil && p.hash != "" {
		kept, err := p.unchanged(ctx, st, rep)
		if err != nil || kept {
			return rep, err
		}
	}
	var rec *recorder
	if st != nil {
		w, err := st.BeginRun(ctx, p.runHead())
		if err != nil {
			return nil, diag.Internal(err)
		}
		rec = startRecorder(ctx, w)
	}
	sum, runErr := p.scan(ctx, rep, rec)
	if rec != nil {
		if err := rec.wait(); err != nil && (runErr == nil || errors.Is(runErr, errRecording)) {
			runErr = err
		}
	}
	return p.conclude(ctx, rep, rec, sum, runErr)
}

// runHead is the run the scan is recorded as; with a content hash its id
// carries the hash, so that an unchanged scan is recognised.
func (p *ScanPlan) runHead() model.EvaluationRun {
	now := p.in.Now
	if now.IsZero() {
		now = time.Now()
	}
	head := RunHead(p.key, now, p.inputs)
	if p.hash != "" {
		head.ID = "scan-" + now.UTC().Format("20060102T150405Z") + "-" + p.hash
	}
	return head
}

// scan runs the job, counting verdicts and blocked traces into rep and
// handing every result to the caller's OnResult, then to rec.
func (p *ScanPlan) scan(ctx context.Context, rep *ScanReport, rec *recorder) (*Summary, error) {
	sc := NewScanner(p.cfg, p.vaults)
	sc.VaultKey = p.in.VaultKey
	sc.Compliance, sc.ReportTime = p.in.Compliance, p.reportTime
	if p.in.Compliance != ComplianceOff {
		rep.Compliance = &ComplianceTotals{}
	}
	// The recorder's goroutine reads results after OnResult returned.
	transient := p.in.Transient && rec == nil
	job := &Job{Scanner: sc, KeepGoing: p.in.KeepGoing, Workers: p.in.Workers, Render: p.in.Render, Transient: transient, OnResult: func(r *Result) error {
		rep.Verdicts[r.Verdict]++
		if rep.Compliance != nil && r.Compliance != nil {
			rep.Compliance.add(&r.Compliance.Assessment)
		}
		if r.Blocked {
			rep.BlockedIDs = append(rep.BlockedIDs, strings.Clone(r.ScenarioID)) // not a view that pins the trace's line
		}
		if p.in.OnResult != nil {
			if err := p.in.OnResult(r); err != nil {
				return err
			}
		}
		if rec == nil {
			return nil
		}
		return rec.add(r)
	}}
	return job.Run(ctx, p.inputs)
}

// conclude completes or removes the recorded run and fills in the report.
func (p *ScanPlan) conclude(ctx context.Context, rep *ScanReport, rec *recorder, sum *Summary, runErr error) (*ScanReport, error) {
	if sum != nil {
		rep.Traces, rep.Blocked, rep.Diags = sum.Traces, sum.Blocked, sum.Diags
	}
	sort.Strings(rep.BlockedIDs)
	failed := sum == nil || (runErr != nil && !p.in.KeepGoing) || (rec != nil && rec.err != nil)
	if rec != nil {
		if err := rec.end(ctx, !failed && rep.Traces > 0); err != nil {
			return nil, diag.Internal(err)
		}
		if !failed && rep.Traces > 0 {
			rep.Status, rep.RunID, rep.Recorded = ScanRecorded, rec.w.ID(), rec.w.Written()
		}
	}
	if rep.Traces == 0 && !failed {
		rep.Status = ScanEmpty
	}
	if failed {
		return nil, runErr
	}
	return rep, runErr
}

// recorder hands a scan's results to the store's run writer on a goroutine
// of its own, so that scanning and output go on while the writer works.
// Results go over in batches: one channel send (and goroutine wake-up) per
// result was a tenth of a recorded scan's extra CPU with one worker.
type recorder struct {
	w      backend.RunWriter
	ch     chan []*Result
	batch  []*Result // filled by add, sent when full
	err    error     // the writer's first error, read after wait
	failed atomic.Bool
	done   sync.WaitGroup
	keys   recordKeys
}

// recordBatch is how many results go to the writer's goroutine at once.
const recordBatch = 64

func startRecorder(ctx context.Context, w backend.RunWriter) *recorder {
	rec := &recorder{w: w, ch: make(chan []*Result, 4)}
	rec.done.Add(1)
	go func() {
		defer rec.done.Done()
		for batch := range rec.ch {
			for _, r := range batch {
				if rec.err != nil {
					break
				}
				if rec.err = w.Add(ctx, ResultOf(rec.keys.Next(r.ScenarioID, r.RunID), r)); rec.err != nil {
					rec.failed.Store(true)
				}
			}
		}
	}()
	return rec
}

// add queues r for the writer; after a write failed it stops the scan.
func (rec *recorder) add(r *Result) error {
	if rec.failed.Load() {
		return errRecording
	}
	rec.batch = append(rec.batch, r)
	if len(rec.batch) == recordBatch {
		rec.ch <- rec.batch
		rec.batch = make([]*Result, 0, recordBatch)
	}
	return nil
}

// wait lets the writer take the last results and returns its error.
func (rec *recorder) wait() error {
	if len(rec.batch) > 0 {
		rec.ch <- rec.batch
		rec.batch = nil
	}
	close(rec.ch)
	rec.done.Wait()
	return rec.err
}

// end completes the run, or removes it when the scan is not to be kept (or
// completing it failed).
func (rec *recorder) end(ctx context.Context, keep bool) error {
	if keep {
		err := rec.w.Finish(ctx, model.StatusCompleted)
		if err == nil {
			return nil
		}
		if abortErr := rec.w.Abort(ctx); abortErr != nil {
			return errors.Join(err, abortErr)
		}
		return err
	}
	return rec.w.Abort(ctx)
}

// recordKeys gives each recorded trace its task specification key, the
// same keys as TaskKeys (the scenario id, then `<scenario_id>__<run_id>`,
// then `-2`, ...), but remembers where the numbering of each
// `<scenario_id>__<run_id>` stands instead of counting from 2 again for
// every repeat: an input that repeats its traces a hundred times spent 0.6 s
// of CPU there. The keys are copies, not views into the traces' lines.
type recordKeys struct {
	used map[string]bool
	next map[string]int // the first number not yet tried, by scenario_id@run_id
}

// Next returns the key for the next trace.
func (k *recordKeys) Next(scenarioID, runID string) string {
	if k.used == nil {
		k.used, k.next = map[string]bool{}, map[string]int{}
	}
	key := kind.KeyOf(scenarioID)
	if k.used[key] {
		base := repeatKey(scenarioID, runID)
		key = base
		if k.used[key] {
			n := max(k.next[base], 2)
			for key = numberedKey(base, n); k.used[key]; key = numberedKey(base, n) {
				n++
			}
			k.next[base] = n + 1
		}
	} else {
		key = strings.Clone(key)
	}
	k.used[key] = true
	return key
}

// unchanged keeps the latest run of the evaluation when its id carries the
// same content hash, and fills rep from its recorded metrics.
func (p *ScanPlan) unchanged(ctx context.Context, st ScanStore, rep *ScanReport) (bool, error) {
	refs, err := st.LatestRuns(ctx, []string{p.key})
	if err != nil {
		return false, diag.Internal(err)
	}
	if len(refs) == 0 || !hasHashSuffix(refs[0].ID, p.hash) {
		return false, nil
	}
	vals, err := st.Values(ctx, model.RunRef{EvaluationKey: p.key, ID: refs[0].ID}, "blocked")
	if err != nil {
		return false, diag.Internal(err)
	}
	rep.Status, rep.RunID, rep.Verdicts = ScanUnchanged, refs[0].ID, nil
	for _, v := range vals {
		rep.Traces++
		if v.Value != 0 {
			rep.Blocked++
			rep.BlockedIDs = append(rep.BlockedIDs, v.TaskSpecificationKey)
		}
	}
	sort.Strings(rep.BlockedIDs)
	if p.in.Compliance != ComplianceOff {
		c, err := storedCompliance(ctx, st, model.RunRef{EvaluationKey: p.key, ID: refs[0].ID})
		if err != nil {
			return false, diag.Internal(err)
		}
		rep.Compliance = c
	}
	return rep.Traces > 0, nil
}

func hasHashSuffix(id, hash string) bool {
	return len(id) > len(hash) && id[len(id)-len(hash)-1] == '-' && id[len(id)-len(hash):] == hash
}
