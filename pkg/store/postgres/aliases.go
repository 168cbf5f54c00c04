package postgres

import (
	"time"

	"github.com/lfcli/lf/pkg/store/backend"
)

// The value types are the backend's.
type (
	Outcome       = backend.Outcome
	Entity        = backend.Entity
	RunRow        = backend.RunRow
	AgentRow      = backend.AgentRow
	AgentScoreRow = backend.AgentScoreRow
	HistoryPoint  = backend.HistoryPoint
	TenantBody    = backend.TenantBody
	AlertDelivery = backend.AlertDelivery
	GCResult      = backend.GCResult
)

const (
	Created    = backend.Created
	Updated    = backend.Updated
	Unchanged  = backend.Unchanged
	TimeFormat = backend.TimeFormat
	StaleAfter = backend.StaleAfter
	AbandonEnv = backend.AbandonEnv
)

// FormatTime renders t as the store keeps times.
func FormatTime(t time.Time) string { return backend.FormatTime(t) }

var (
	_ backend.Backend     = (*Store)(nil)
	_ backend.Tx          = (*Tx)(nil)
	_ backend.RunWriter   = (*RunWriter)(nil)
	_ backend.BulkRuns    = (*BulkRuns)(nil)
	_ backend.EventIngest = (*EventIngest)(nil)
	_ backend.ScoreWriter = (*ScoreWriter)(nil)
	_ backend.AlertStates = (*AlertStates)(nil)
)
