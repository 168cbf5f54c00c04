package agentrisk

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/lfcli/lf/pkg/diag"
)

var errTODO = errors.New("agentrisk: not implemented yet")

func (e *Engine) ingest(ctx context.Context, events []Event) (IngestResult, error) {
	return IngestResult{}, errTODO
}
func (e *Engine) recalculate(ctx context.Context, tenantID, agentID string, at time.Time) ([]Change, error) {
	return nil, errTODO
}
func (e *Engine) listAll(ctx context.Context, tenantID string) ([]AgentSummary, error) {
	return nil, errTODO
}
func (e *Engine) getForAgent(ctx context.Context, tenantID, agentID string) (AgentRisk, error) {
	return AgentRisk{}, errTODO
}
func (e *Engine) baseline(ctx context.Context, tenantID, agentID string) (Baseline, error) {
	return Baseline{}, errTODO
}
func (e *Engine) resetBaseline(ctx context.Context, tenantID, agentID string, at time.Time) error {
	return errTODO
}
func (e *Engine) release(ctx context.Context, tenantID, agentID string) error { return errTODO }
func (e *Engine) agentState(ctx context.Context, tenantID, agentID string, now time.Time) (AgentState, error) {
	return AgentState{}, errTODO
}
func (e *Engine) getRiskConfig(ctx context.Context, tenantID string) (RiskConfig, error) {
	return RiskConfig{}, errTODO
}
func (e *Engine) putRiskConfig(ctx context.Context, tenantID string, cfg RiskConfig) error {
	return errTODO
}
func (e *Engine) listRiskConfigs(ctx context.Context) ([]RiskConfig, error) { return nil, errTODO }
func (e *Engine) tenants(ctx context.Context) ([]string, error)             { return nil, errTODO }
func defaultRiskConfig() RiskConfig {
	return RiskConfig{ElevatedThreshold: 60, HighThreshold: 80, CriticalThreshold: 90, ElevatedRateMult: 0.5, HighRateMult: 0.25,
		GracePeriodSeconds: 300, CriticalAllowedMethods: []string{"initialize", "ping"}, DecayHalfLifeHours: 24}
}
func parseRiskConfig(file string, data []byte) (RiskConfig, diag.List)       { return RiskConfig{}, nil }
func parseRiskConfigFile(file string, data []byte) ([]RiskConfig, diag.List) { return nil, nil }
func validateRiskConfig(cfg RiskConfig, prefix string) diag.List             { return nil }
func parseEvents(file string, r io.Reader) ([]Event, diag.List)              { return nil, nil }
