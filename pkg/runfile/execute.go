package runfile

import (
	"context"
	"errors"
	"time"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/evaluation"
	"github.com/lfcli/lf/pkg/frameworks"
	"github.com/lfcli/lf/pkg/kind"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/store"
)

// Options are what `lf run` adds to a run file.
type Options struct {
	ProjectDir string    // absolute project root
	Now        time.Time // the time the run started; zero means time.Now()
	// Kinds are the file kinds beyond entity files (pkg/cli/filetypes.go),
	// to tell a file of another kind named in apply: from an entity file.
	Kinds []kind.File
	// OnApplied and OnReport, when set, see each step as it ends, so a face
	// can show progress before the next step runs.
	OnApplied func(Applied)
	OnReport  func(evaluation.Report)
}

// Applied counts what the apply: step did to the store's entities.
type Applied struct {
	Entities  int       `json:"entities"`
	Created   int       `json:"created"`
	Updated   int       `json:"updated"`
	Unchanged int       `json:"unchanged"`
	Warnings  diag.List `json:"-"`
}

// Result is what a run did: the entities applied, one report per
// evaluation in the order written, and the risk-scorer overview after them.
type Result struct {
	Applied     *Applied            `json:"applied,omitempty"`
	Evaluations []evaluation.Report `json:"evaluations"`
	RiskScorers []risk.Result       `json:"risk_scorers"`
	// Compliance is the compliance: step's frameworks (nil without one);
	// complianceGate is why its gate trips ("" when it does not).
	Compliance     []frameworks.Result `json:"compliance,omitempty"`
	complianceGate string
}

// GateFailures are the reasons of the evaluations whose gate the run file
// turned on and whose condition holds (blocked traces, empty inputs).
func (r *Result) GateFailures() []string {
	var out []string
	for _, ev := range r.Evaluations {
		if ev.GateFails() {
			out = append(out, ev.Reason)
		}
	}
	if r.complianceGate != "" {
		out = append(out, r.complianceGate)
	}
	return out
}

// Execute runs a loaded run file against st: every entity file is checked
// before anything is written and the entities are upserted in one
// transaction; then the evaluations run in order, each recorded as
// evaluation runs; then the overview is computed. An evaluation that fails
// stops the run with its error, keeping what was recorded before it.
func Execute(ctx context.Context, spec *Spec, opts Options, st *store.Store) (*Result, error) {
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	opts.Now = opts.Now.UTC()
	res := &Result{Evaluations: []evaluation.Report{}}
	if len(spec.Apply) > 0 {
		a, err := apply(ctx, opts, spec.Apply, st)
		if err != nil {
			return nil, err
		}
		res.Applied = a
		if opts.OnApplied != nil {
			opts.OnApplied(*a)
		}
	}
	for _, ref := range spec.Evaluations {
		ev, ok := Lookup(ref.Name)
		if !ok { // Load checked the names
			return nil, diag.Internal(diag.Invalidf("unknown evaluation %q", ref.Name))
		}
		rep, err := ev.Run(ctx, evaluation.Env{
			ProjectDir: opts.ProjectDir, BaseDir: spec.BaseDir, RunFile: spec.Rel, Pointer: ref.Pointer, Now: opts.Now,
		}, ref.Spec, st)
		if err != nil {
			return nil, err
		}
		res.Evaluations = append(res.Evaluations, rep)
		if opts.OnReport != nil {
			opts.OnReport(rep)
		}
	}
	ov, err := project.Overview(ctx, st, project.OverviewFilter{Domain: spec.Domain})
	if fe := (*project.FilterError)(nil); errors.As(err, &fe) {
		// overview.domain of the run file matches nothing: say where it is.
		return nil, diag.Invalid(diag.List{{File: spec.Rel, Pointer: "/overview/" + fe.Filter, Msg: fe.Msg}})
	}
	if err != nil {
		return nil, err
	}
	if ov == nil {
		ov = []risk.Result{}
	}
	res.RiskScorers = ov
	if spec.Compliance != nil {
		if err := runCompliance(ctx, spec, st, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// apply loads and checks the entity files (against the methodologies
// already stored too) and upserts them in one transaction.
func apply(ctx context.Context, opts Options, paths []string, st *store.Store) (*Applied, error) {
	b, warns, err := project.LoadChecked(ctx, opts.ProjectDir, paths, nil, st, opts.Kinds)
	if err != nil {
		return nil, err
	}
	changes, err := project.Upsert(ctx, st, b)
	if err != nil {
		return nil, err
	}
	a := &Applied{Entities: len(changes), Warnings: warns}
	for _, ch := range changes {
		switch ch.Outcome {
		case store.Created:
			a.Created++
		case store.Updated:
			a.Updated++
		case store.Unchanged:
			a.Unchanged++
		}
	}
	return a, nil
}
