package store

import (
	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/postgres"
	"github.com/lfcli/lf/pkg/store/sqlite"
)

// Both backends implement the whole of pkg/store/backend.
var (
	_ backend.Backend     = (*sqlite.Store)(nil)
	_ backend.Tx          = (*sqlite.Tx)(nil)
	_ backend.RunWriter   = (*sqlite.RunWriter)(nil)
	_ backend.BulkRuns    = (*sqlite.BulkRuns)(nil)
	_ backend.EventIngest = (*sqlite.EventIngest)(nil)
	_ backend.ScoreWriter = (*sqlite.ScoreWriter)(nil)
	_ backend.AlertStates = (*sqlite.AlertStates)(nil)

	_ backend.Backend     = (*postgres.Store)(nil)
	_ backend.Tx          = (*postgres.Tx)(nil)
	_ backend.RunWriter   = (*postgres.RunWriter)(nil)
	_ backend.BulkRuns    = (*postgres.BulkRuns)(nil)
	_ backend.EventIngest = (*postgres.EventIngest)(nil)
	_ backend.ScoreWriter = (*postgres.ScoreWriter)(nil)
	_ backend.AlertStates = (*postgres.AlertStates)(nil)
)
