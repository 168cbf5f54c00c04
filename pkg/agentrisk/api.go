// Package agentrisk computes per-agent risk scores from agent events: five
// explained components (injection, tool drift, excessive agency, anomaly,
// policy violation rate) weighted by recency decay into a 0-100 score, tiers
// from the tenant's risk config, enforcement decisions, baselines and history.
//
// The Engine wraps the store; every method takes the tenant id so that tenant
// isolation is explicit. Decide is a pure function the gateway (lf serve)
// calls per request.
package agentrisk

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/store"
)

// Sentinel errors, so that callers (the HTTP server) can map them to 404.
var (
	// ErrNotFound: the tenant or agent has no data in the store.
	ErrNotFound = errors.New("not found")
)

// Tier is a risk tier.
type Tier string

// Tiers, lowest first.
const (
	TierNormal   Tier = "normal"
	TierElevated Tier = "elevated"
	TierHigh     Tier = "high"
	TierCritical Tier = "critical"
)

// Event is one request or tool call seen by the gateway (one JSONL line).
type Event struct {
	Timestamp      time.Time `json:"timestamp"`
	TenantID       string    `json:"tenant_id"`
	AgentID        string    `json:"agent_id"`
	AgentName      string    `json:"agent_name,omitempty"`
	SessionID      string    `json:"session_id,omitempty"`
	Method         string    `json:"method,omitempty"`
	Tool           string    `json:"tool,omitempty"`
	Resource       string    `json:"resource,omitempty"`
	HighImpact     bool      `json:"high_impact,omitempty"`
	Decision       string    `json:"decision,omitempty"` // allow | deny
	Rule           string    `json:"rule,omitempty"`
	InjectionScore *float64  `json:"injection_score,omitempty"` // 0..1, absent when not classified
	RequestID      string    `json:"request_id,omitempty"`      // optional; makes otherwise identical events distinct
}

// RateLimit is the tenant-scoped rate limiter: Limit requests per WindowSeconds.
type RateLimit struct {
	Limit         int `json:"limit"`
	WindowSeconds int `json:"windowSeconds"`
}

// Weights are the component weights of the score (score = sum of weight x
// component, clamped to 0..100).
type Weights struct {
	Injection       float64 `json:"injection"`
	ToolDrift       float64 `json:"toolDrift"`
	ExcessiveAgency float64 `json:"excessiveAgency"`
	Anomaly         float64 `json:"anomaly"`
	PolicyViolation float64 `json:"policyViolation"`
}

// RiskConfig is a tenant's risk configuration (camelCase as in
// PUT /tenants/{tenantId}/risk-config). Fields absent from a file or body
// take the values of DefaultRiskConfig.
type RiskConfig struct {
	TenantID               string     `json:"tenantId,omitempty"`
	Enabled                bool       `json:"enabled"`
	ElevatedThreshold      int        `json:"elevatedThreshold"`
	HighThreshold          int        `json:"highThreshold"`
	CriticalThreshold      int        `json:"criticalThreshold"`
	ElevatedRateMult       float64    `json:"elevatedRateMult"`
	HighRateMult           float64    `json:"highRateMult"`
	GracePeriodSeconds     int        `json:"gracePeriodSeconds"`
	MaxClockSkewSeconds    int        `json:"maxClockSkewSeconds"` // events later than now plus this are refused
	CriticalAllowedMethods []string   `json:"criticalAllowedMethods"`
	Weights                Weights    `json:"weights"`
	DecayHalfLifeHours     float64    `json:"decayHalfLifeHours"`
	HighImpactTools        []string   `json:"highImpactTools,omitempty"`
	RateLimit              *RateLimit `json:"rateLimit,omitempty"`
}

// AgentState is what the verdict path needs about an agent: its last score,
// tier, how long it has been in that tier and an admin override.
type AgentState struct {
	TenantID      string    `json:"tenantId,omitempty"`
	AgentID       string    `json:"agentId,omitempty"`
	Score         int       `json:"score"`
	Tier          Tier      `json:"tier,omitempty"`          // from the last recalculation (Decide recomputes it from Score)
	TierSince     time.Time `json:"tierSince,omitempty"`     // when the agent entered Tier
	SecondsInTier *float64  `json:"secondsInTier,omitempty"` // nil = long ago; set by AgentState from TierSince and the given time
	OverrideTier  Tier      `json:"overrideTier,omitempty"`  // admin override (release), until the next recalculation
	CalculatedAt  time.Time `json:"calculatedAt,omitempty"`
}

// Request is one gateway request reaching the rate-limit and risk stages.
type Request struct {
	Method string `json:"method"`
	Shadow bool   `json:"shadow,omitempty"` // already in shadow mode when it reaches these stages
}

// Decision is the outcome of the rate-limit and risk stages for one request.
type Decision struct {
	Tier          Tier    `json:"tier"`
	EffectiveTier Tier    `json:"effectiveTier"`
	Action        string  `json:"action"` // allow | block
	Reason        string  `json:"reason"` // rate_limit | critical_risk when blocked or logged only, else ""
	Multiplier    float64 `json:"multiplier"`
	Shadow        bool    `json:"shadow"`
	LoggedOnly    bool    `json:"loggedOnly"`
}

// Decision actions and reasons.
const (
	ActionAllow        = "allow"
	ActionBlock        = "block"
	ReasonRateLimit    = "rate_limit"
	ReasonCriticalRisk = "critical_risk"
)

// AgentSummary is one element of risk.listAll().
type AgentSummary struct {
	TenantID     string    `json:"tenantId,omitempty"`
	AgentID      string    `json:"agentId"`
	AgentName    string    `json:"agentName"`
	RiskTier     Tier      `json:"riskTier"`
	Score        int       `json:"score"`
	CalculatedAt time.Time `json:"calculatedAt"`
}

// Window summarises the stored scores of an agent over a period before its
// latest calculation.
type Window struct {
	Label       string  `json:"label"`
	AvgScore    float64 `json:"avgScore"`
	MinScore    int     `json:"minScore"`
	MaxScore    int     `json:"maxScore"`
	SampleCount int     `json:"sampleCount"`
}

// Component is one explained score component (0-100).
type Component struct {
	Name        string   `json:"name"` // injection | toolDrift | excessiveAgency | anomaly | policyViolation
	Value       float64  `json:"value"`
	Weight      float64  `json:"weight"`
	Explanation string   `json:"explanation"`
	Drivers     []string `json:"drivers,omitempty"` // the events, tools or features that drove the value
}

// AgentRisk is risk.getForAgent() plus the components and their explanations.
type AgentRisk struct {
	TenantID     string      `json:"tenantId,omitempty"`
	AgentID      string      `json:"agentId"`
	AgentName    string      `json:"agentName,omitempty"`
	Score        int         `json:"score"`
	RiskTier     Tier        `json:"riskTier"`
	CalculatedAt time.Time   `json:"calculatedAt"`
	Trend        string      `json:"trend"` // rising | falling | stable
	DeltaVs24h   int         `json:"deltaVs24h"`
	Windows      []Window    `json:"windows"`
	Components   []Component `json:"components"`
	OverrideTier Tier        `json:"overrideTier,omitempty"`
}

// ToolBaseline is one tool of an agent's baseline.
type ToolBaseline struct {
	ToolName           string   `json:"toolName"`
	CallCount          int      `json:"callCount"`
	AvgCallsPerHour    float64  `json:"avgCallsPerHour"`
	StddevCallsPerHour float64  `json:"stddevCallsPerHour"`
	CommonPatterns     []string `json:"commonPatterns"`
}

// BaselineBody is the "baseline" object of anomalies.getBaseline().
type BaselineBody struct {
	Tools      []ToolBaseline `json:"tools"`
	TotalCalls int            `json:"totalCalls"`
	WindowDays int            `json:"windowDays"`
	UpdatedAt  time.Time      `json:"updatedAt"`
}

// Baseline is anomalies.getBaseline().
type Baseline struct {
	AgentID  string       `json:"agentId"`
	Baseline BaselineBody `json:"baseline"`
}

// Change is the result of recalculating one agent; alerts compare old and new
// to detect upward tier crossings.
type Change struct {
	TenantID     string      `json:"tenantId"`
	AgentID      string      `json:"agentId"`
	AgentName    string      `json:"agentName"`
	OldScore     int         `json:"oldScore"`
	NewScore     int         `json:"newScore"`
	OldTier      Tier        `json:"oldTier,omitempty"` // "" when the agent had no score before
	NewTier      Tier        `json:"newTier"`
	CalculatedAt time.Time   `json:"calculatedAt"`
	Components   []Component `json:"components,omitempty"`
}

// IngestResult counts what Ingest stored.
type IngestResult struct {
	Events     int `json:"events"`            // events given
	New        int `json:"new"`               // events stored for the first time
	Duplicates int `json:"duplicates"`        // events already in the store (not counted twice)
	Agents     int `json:"agents"`            // distinct agents touched
	Expired    int `json:"expired,omitempty"` // events older than their tenant's dedup window, not stored (see DedupHours)

	// Touched lists the agents whose aggregates the ingest wrote, sorted by
	// tenant and agent (for the live path; not part of the API's answer).
	Touched []AgentRef `json:"-"`

	Latest time.Time `json:"latest,omitzero"` // the latest event timestamp given (new or not)
}

// Engine computes and stores agent risk in an lf store. It is safe for
// concurrent use by several goroutines (writes are serialised by the store).
type Engine struct {
	st         *store.Store
	hours      hourCache    // the open hours' hash sets, between ingests (hourcache.go)
	aggs       aggCache     // the aggregates recent ingests wrote, decoded (aggcache.go)
	recalcRead atomic.Int64 // unix nanoseconds when the latest recalculation began to read the aggregates
	recalcAt   atomic.Int64 // and its score time
	// tenantRecalcs holds the same marks for recalculations of one tenant
	// (tenant -> *recalcMark): tenants are recalculated apart, at once.
	tenantRecalcs sync.Map
}

// recalcMark is when a recalculation began to read and its score time.
type recalcMark struct{ read, at int64 }

// LastRecalcOf is LastRecalcRead and LastRecalcAt for the latest
// recalculation that scored tenant: of that tenant alone or of every
// tenant, whichever began to read last.
func (e *Engine) LastRecalcOf(tenant string) (read, at time.Time) {
	r, a := e.recalcRead.Load(), e.recalcAt.Load()
	if v, ok := e.tenantRecalcs.Load(tenant); ok {
		if m := v.(*recalcMark); m.read > r {
			r, a = m.read, m.at
		}
	}
	if r != 0 {
		read = time.Unix(0, r)
	}
	if a != 0 {
		at = time.Unix(0, a).UTC()
	}
	return read, at
}

// LastRecalcAt is the score time of the latest recalculation of this engine
// (zero before the first), to tell its stored scores from other processes'.
func (e *Engine) LastRecalcAt() time.Time {
	if n := e.recalcAt.Load(); n != 0 {
		return time.Unix(0, n).UTC()
	}
	return time.Time{}
}

// LastRecalcRead is when the latest recalculation began to read the agents'
// aggregates (zero before the first): its scores include every event
// committed before then. The live path uses it to tell which of its scores
// are newer than a recalculation's.
func (e *Engine) LastRecalcRead() time.Time {
	if n := e.recalcRead.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// NewEngine returns an engine on an open store (the agent risk tables are
// created by the store's migrations).
func NewEngine(st *store.Store) *Engine { return &Engine{st: st} }

// Store returns the underlying store.
func (e *Engine) Store() *store.Store { return e.st }

// Ingest stores events (already parsed and checked, e.g. by ParseEvents) in
// one transaction. It is idempotent: an event identical to one already stored
// (same content hash) is counted once.
func (e *Engine) Ingest(ctx context.Context, events []Event) (IngestResult, error) {
	return e.ingest(ctx, events)
}

// Recalculate scores the agents of tenantID ("" = all tenants) at time at
// (agentID "" = all agents of the tenant), stores a history snapshot and the
// baseline of each, clears admin overrides of the recalculated agents and
// returns one Change per agent, sorted by tenant and agent. Unknown tenant or
// agent: ErrNotFound.
func (e *Engine) Recalculate(ctx context.Context, tenantID, agentID string, at time.Time) ([]Change, error) {
	return e.recalculate(ctx, tenantID, agentID, at)
}

// ListAll returns risk.listAll() for a tenant ("" = all tenants), sorted by
// score descending then agent id. Agents never recalculated are absent.
func (e *Engine) ListAll(ctx context.Context, tenantID string) ([]AgentSummary, error) {
	return e.listAll(ctx, tenantID)
}

// GetForAgent returns risk.getForAgent() with the components of the latest
// calculation. ErrNotFound when the agent has no score.
func (e *Engine) GetForAgent(ctx context.Context, tenantID, agentID string) (AgentRisk, error) {
	return e.getForAgent(ctx, tenantID, agentID)
}

// Baseline returns anomalies.getBaseline() as stored by the latest
// recalculation. ErrNotFound for an unknown agent.
func (e *Engine) Baseline(ctx context.Context, tenantID, agentID string) (Baseline, error) {
	return e.baseline(ctx, tenantID, agentID)
}

// ResetBaseline forgets the agent's baseline: history before at no longer
// counts towards it, and the stored baseline is emptied until the next
// recalculation. ErrNotFound for an unknown agent.
func (e *Engine) ResetBaseline(ctx context.Context, tenantID, agentID string, at time.Time) error {
	return e.resetBaseline(ctx, tenantID, agentID, at)
}

// Release is an admin release of an agent's critical block: its effective
// tier is normal until the next recalculation of that agent. ErrNotFound for
// an agent without a score.
func (e *Engine) Release(ctx context.Context, tenantID, agentID string) error {
	return e.release(ctx, tenantID, agentID)
}

// AgentState returns the verdict-path state of an agent at time now
// (SecondsInTier = now - TierSince). ErrNotFound for an agent without score.
func (e *Engine) AgentState(ctx context.Context, tenantID, agentID string, now time.Time) (AgentState, error) {
	return e.agentState(ctx, tenantID, agentID, now)
}

// GetRiskConfig returns the tenant's risk config, or DefaultRiskConfig (with
// TenantID set) when none was stored.
func (e *Engine) GetRiskConfig(ctx context.Context, tenantID string) (RiskConfig, error) {
	return e.getRiskConfig(ctx, tenantID)
}

// PutRiskConfig validates (ValidateRiskConfig) and stores the tenant's risk
// config; an invalid config is a diag.Invalid error naming the fields.
func (e *Engine) PutRiskConfig(ctx context.Context, tenantID string, cfg RiskConfig) error {
	return e.putRiskConfig(ctx, tenantID, cfg)
}

// ListRiskConfigs returns every stored tenant risk config, sorted by tenant.
func (e *Engine) ListRiskConfigs(ctx context.Context) ([]RiskConfig, error) {
	return e.listRiskConfigs(ctx)
}

// Tenants lists the tenants that have events, sorted.
func (e *Engine) Tenants(ctx context.Context) ([]string, error) {
	return e.tenants(ctx)
}

// DefaultRiskConfig returns the documented defaults: enforcement off,
// thresholds 60/80/90, multipliers 0.50/0.25, grace 300 s, critical
// allow-list [initialize, ping], decay half-life 24 h, default weights,
// no rate limit.
func DefaultRiskConfig() RiskConfig { return defaultRiskConfig() }

// ParseRiskConfig parses one tenant risk config (YAML or JSON, e.g. an HTTP
// body named file in messages) onto the defaults and validates it: schema
// then semantic checks, with JSON pointers naming the fields.
func ParseRiskConfig(file string, data []byte) (RiskConfig, diag.List) {
	return parseRiskConfig(file, data)
}

// ParseRiskConfigFile parses a project risk-config file
// (`risk_configs: [{tenantId: ..., ...}]`) and validates every entry.
func ParseRiskConfigFile(file string, data []byte) ([]RiskConfig, diag.List) {
	return parseRiskConfigFile(file, data)
}

// ValidateRiskConfig runs the semantic checks (thresholds strictly rising in
// 1..100, multipliers in (0, 1], grace >= 0, ...) on a decoded config. The
// diagnostics carry JSON pointers relative to the config object (prefix is
// prepended, e.g. "/risk_configs/0") but no file or position.
func ValidateRiskConfig(cfg RiskConfig, prefix string) diag.List {
	return validateRiskConfig(cfg, prefix)
}

// TierFor maps a score to its tier under cfg's thresholds.
func TierFor(cfg RiskConfig, score int) Tier { return tierFor(&cfg, score) }

// Decide runs the rate-limit stage and the risk stage for one request. It is
// pure (no store, no clock): agent.SecondsInTier says how long the agent has
// been in its tier (nil = long ago) and tenantCount is how many requests the
// tenant already used in the current rate window.
func Decide(cfg RiskConfig, agent AgentState, req Request, tenantCount int) Decision {
	return decide(&cfg, &agent, &req, tenantCount)
}

// ParseEvents reads events as JSONL/NDJSON (one object per line, blank lines
// ignored) or as one JSON array. Every bad line is reported with file, line
// and a JSON pointer; with any error, no events are returned.
func ParseEvents(file string, r io.Reader) ([]Event, diag.List) {
	return parseEvents(file, r)
}
