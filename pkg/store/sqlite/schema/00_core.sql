-- Core entities: methodologies and risk scorers as JSON (what scoring reads)
-- and as their canonical YAML with comments (what export writes back).
CREATE TABLE IF NOT EXISTS entities (
    kind       TEXT NOT NULL,
    key        TEXT NOT NULL,
    body       TEXT NOT NULL,
    yaml       TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL,
    PRIMARY KEY (kind, key)
);

CREATE TABLE IF NOT EXISTS evaluation_runs (
    evaluation_key TEXT NOT NULL,
    id             TEXT NOT NULL,
    created_at     TEXT NOT NULL, -- RFC 3339 in UTC, fixed width, so it sorts as text
    status         TEXT NOT NULL,
    body           TEXT NOT NULL, -- JSON of the run without its results
    yaml           TEXT NOT NULL DEFAULT '', -- canonical YAML as added, '' for runs recorded by lf
    PRIMARY KEY (evaluation_key, id)
);

-- The latest-completed-run lookup of every risk scorer walks this index
-- backwards from (evaluation_key, 'completed'), so it costs O(log runs).
CREATE INDEX IF NOT EXISTS evaluation_runs_latest
    ON evaluation_runs (evaluation_key, status, created_at, id);

-- One row per metric value, clustered by run and metric: scoring reads the
-- values of one metric of one run as a single range of the table.
CREATE TABLE IF NOT EXISTS metric_values (
    evaluation_key         TEXT NOT NULL,
    run_id                 TEXT NOT NULL,
    metric_key             TEXT NOT NULL,
    task_specification_key TEXT NOT NULL,
    scorer_key             TEXT NOT NULL,
    value                  REAL NOT NULL,
    PRIMARY KEY (evaluation_key, run_id, metric_key, task_specification_key, scorer_key)
) WITHOUT ROWID;

-- The latest completed run of every evaluation key, kept up to date by every
-- write, so that all_latest scopes cost one row per evaluation key.
CREATE TABLE IF NOT EXISTS latest_runs (
    evaluation_key TEXT PRIMARY KEY,
    id             TEXT NOT NULL,
    created_at     TEXT NOT NULL
);
