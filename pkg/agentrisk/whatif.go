package agentrisk

import (
	"context"
	"errors"
	"time"

	"github.com/lfcli/lf/pkg/diag"
)

// WhatIf scores the chosen agents at time at exactly as Recalc would, and
// returns the changes against the stored scores, but stores nothing: no
// score, snapshot or baseline changes, and the live verdict state, alert
// crossings and the engine's record of its last recalculation are left
// alone. It answers "what would the scores be at another time" without
// changing enforcement. Unknown tenants and agents are diag.Invalid errors.
func WhatIf(ctx context.Context, e *Engine, opts RecalcOptions) ([]Change, error) {
	changes, err := e.whatIf(ctx, opts.Tenant, opts.Agent, opts.At.UTC())
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, diag.Invalidf("%w", err)
		}
		return nil, diag.Internal(err)
	}
	return changes, nil
}

func (e *Engine) whatIf(ctx context.Context, tenantID, agentID string, at time.Time) ([]Change, error) {
	ins, err := e.loadInputs(ctx, tenantID, agentID, at)
	if err != nil {
		return nil, err
	}
	calcs, cfgs, err := e.scoreAll(ctx, ins, at)
	if err != nil {
		return nil, err
	}
	olds, err := e.st.AgentScoreList(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	old := make(map[agentKey]int, len(olds))
	for i, o := range olds {
		old[agentKey{o.TenantID, o.AgentID}] = i
	}
	var changes []Change
	for i := range calcs {
		c := &calcs[i]
		if agentID != "" && c.in.agent != agentID {
			continue
		}
		k := agentKey{c.in.tenant, c.in.agent}
		ch := Change{TenantID: k.tenant, AgentID: k.agent, AgentName: c.in.name, NewScore: c.score, NewTier: tierFor(cfgs[k.tenant], c.score), CalculatedAt: at, Components: c.comps[:]}
		if j, ok := old[k]; ok {
			ch.OldScore, ch.OldTier = olds[j].Score, Tier(olds[j].Tier)
		}
		changes = append(changes, ch)
	}
	return changes, nil
}
