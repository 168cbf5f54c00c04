package sqlstore

// The statements of backend.RunHistory that both backends run as they are.
var (
	// RunTimelineAll lists the completed runs of an app in (created_at,
	// id) order: the timeline of every evaluation key (PostgreSQL; SQLite
	// reads them in its index's order and sorts them after).
	RunTimelineAll = stmt(`SELECT evaluation_key, id, created_at FROM evaluation_runs
		WHERE app = $1 AND status = 'completed' ORDER BY created_at, id, evaluation_key`)
)
