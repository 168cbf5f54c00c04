package backend

import (
	"errors"
	"time"

	"github.com/lfcli/lf/pkg/model"
)

// Outcome says what an upsert did.
type Outcome string

// Upsert outcomes, as `lf add` prints them.
const (
	Created   Outcome = "created"
	Updated   Outcome = "updated"
	Unchanged Outcome = "unchanged"
)

// Entity is a stored methodology or risk scorer.
type Entity struct {
	Kind model.Kind
	Key  string
	Body string // JSON
	YAML string // canonical YAML list item, with comments
}

// NoApp is the app of rows written before stores held many apps (the
// 50_apps migration puts them there). pkg/store's UseApp hands them to the
// first app a store is opened for.
const NoApp = ""

// ErrAppExists is what RenameApp fails with when the target app already
// holds entities or runs.
var ErrAppExists = errors.New("app already exists")

// AppInfo is one app of a store and what it holds (`lf apps`).
type AppInfo struct {
	App           string
	Methodologies int
	RiskScorers   int
	Runs          int
	LatestRunAt   string // TimeFormat: created_at of its newest run, "" without runs
}

// RunRow is a stored evaluation run without its values.
type RunRow struct {
	EvaluationKey string
	ID            string
	CreatedAt     string
	Status        string
	YAML          string
	Values        int
	Tool          string // metadata.tool of an imported run, "" otherwise
	SourceFile    string // metadata.source_file
	OriginalKey   string // metadata.original_names.evaluation_key: the tool's name, when the key differs
	OriginalID    string // metadata.original_names.id
}

// AgentRow is one agent's aggregate.
type AgentRow struct {
	TenantID, AgentID, AgentName string
	Agg                          []byte
	FirstEventAt, LastEventAt    string // TimeFormat
	BaselineResetAt              string // TimeFormat, "" when never reset
}

// AgentScoreRow is one agent's latest score.
type AgentScoreRow struct {
	TenantID, AgentID, AgentName string
	Score                        int
	Tier, TierSince              string
	CalculatedAt, OverrideTier   string
	Components, Baseline         string // JSON
}

// HistoryPoint is one score snapshot.
type HistoryPoint struct {
	At    string // TimeFormat
	Score int
}

// TenantBody is a tenant's stored risk config.
type TenantBody struct {
	TenantID, Body string
}

// AlertDelivery is one delivery attempt of an alert.
type AlertDelivery struct {
	Seq        int64
	TenantID   string
	RuleID     string
	AgentID    string
	AlertID    string
	Channel    string
	Target     string
	Attempt    int
	Status     string
	StatusCode int
	Error      string
	Time       time.Time
}

// OutboxAlert is an alert fired and not yet delivered or given up: written
// in the transaction that claims its rule's crossing, deleted when its
// delivery ends, so an alert survives a crash (delivered at least once).
// LeaseUntil is until when the process delivering it holds it.
type OutboxAlert struct {
	AlertID    string
	TenantID   string
	RuleID     string
	AgentID    string
	Body       string // the alert as the domain's JSON
	CreatedAt  time.Time
	LeaseUntil time.Time
}

// StaleAfter is how long a run's writer on another host may stay silent
// before its run counts as abandoned. Writers on this host are checked by
// process id instead.
const StaleAfter = 24 * time.Hour

// GCResult is what CollectGarbage removed.
type GCResult struct {
	Runs   []string // EVALUATION_KEY/ID of each abandoned run removed
	Values int64    // metric values removed with them
}

// TimeFormat is how times are stored: RFC 3339 in UTC with fixed-width
// nanoseconds, so that text order is time order.
const TimeFormat = "2006-01-02T15:04:05.000000000Z"

// FormatTime renders t in TimeFormat.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

// AbandonEnv names the test hook that makes Finish leave its run as a
// crashed writer would (still running, its writer gone once the process
// exits), so tests can exercise abandoned-run clean-up.
const AbandonEnv = "LF_TEST_ABANDON_RUN"
