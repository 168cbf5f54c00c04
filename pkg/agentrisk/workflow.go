package agentrisk

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/lfcli/lf/pkg/diag"
)

// The agent risk workflow: ingest events, set the tenants' risk configs,
// recalculate and record. `lf agents ...`, the run file's agent_risk
// evaluation and the server's recalculation all go through these functions,
// so that each step has one implementation.

// Ingest folds the events of srcs into the store in one transaction. A bad
// event anywhere stores nothing and comes back as a located diag error.
func Ingest(ctx context.Context, e *Engine, srcs []Source) (IngestResult, error) {
	res, diags, err := e.IngestSources(ctx, srcs)
	if err != nil {
		return res, diag.Internal(err)
	}
	if diags.HasErrors() {
		return res, diag.Invalid(diags)
	}
	return res, nil
}

// LoadRiskConfigs reads and checks a risk-config file; display names it in
// messages.
func LoadRiskConfigs(path, display string) ([]RiskConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, diag.Invalidf("%s: %v", display, errors.Unwrap(err))
	}
	cfgs, diags := ParseRiskConfigFile(display, data)
	if diags.HasErrors() {
		return nil, diag.Invalid(diags)
	}
	return cfgs, nil
}

// SetRiskConfigs makes cfgs the whole set of stored tenant risk configs.
func SetRiskConfigs(ctx context.Context, e *Engine, cfgs []RiskConfig) error {
	if err := e.ReplaceRiskConfigs(ctx, cfgs); err != nil {
		var de *diag.Error
		if errors.As(err, &de) {
			return err
		}
		return diag.Internal(err)
	}
	return nil
}

// RecalcOptions choose what a recalculation scores and whether it is
// recorded as an agent_risk evaluation run.
type RecalcOptions struct {
	Tenant string    // "" = every tenant
	Agent  string    // "" = every agent of the tenant
	At     time.Time // score time
	Record bool      // record the changes as an agent_risk evaluation run
}

// Recalc scores the chosen agents at opts.At, stores a snapshot per agent
// and, with opts.Record, records the agent_risk evaluation run that risk
// scorers watch. Unknown tenants and agents are diag.Invalid errors.
func Recalc(ctx context.Context, e *Engine, opts RecalcOptions) ([]Change, error) {
	changes, err := e.Recalculate(ctx, opts.Tenant, opts.Agent, opts.At)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, diag.Invalidf("%w", err)
		}
		return nil, diag.Internal(err)
	}
	if opts.Record && len(changes) > 0 {
		if err := e.Store().RecordRun(ctx, EvaluationRun(changes, opts.At)); err != nil {
			return changes, diag.Internal(err)
		}
	}
	return changes, nil
}
