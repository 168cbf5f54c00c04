-- Core entities: methodologies and risk scorers as JSON (what scoring reads)
-- and as their canonical YAML with comments (what export writes back).
-- The same tables as the SQLite store (pkg/store/sqlite/schema), with the
-- same migration versions, so that `lf store copy` maps them one to one.
-- Times are text in backend.TimeFormat (fixed width, so text order is time
-- order), as in SQLite. Text columns use the "C" collation: byte order, as
-- SQLite compares, whatever the database's default collation is.
CREATE TABLE IF NOT EXISTS entities (
    kind       TEXT COLLATE "C" NOT NULL,
    key        TEXT COLLATE "C" NOT NULL,
    body       TEXT COLLATE "C" NOT NULL,
    yaml       TEXT COLLATE "C" NOT NULL DEFAULT '',
    updated_at TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (kind, key)
);

CREATE TABLE IF NOT EXISTS evaluation_runs (
    evaluation_key TEXT COLLATE "C" NOT NULL,
    id             TEXT COLLATE "C" NOT NULL,
    created_at     TEXT COLLATE "C" NOT NULL,
    status         TEXT COLLATE "C" NOT NULL,
    body           TEXT COLLATE "C" NOT NULL,            -- JSON of the run without its results
    yaml           TEXT COLLATE "C" NOT NULL DEFAULT '', -- canonical YAML as added, '' for runs recorded by lf
    PRIMARY KEY (evaluation_key, id)
);

CREATE INDEX IF NOT EXISTS evaluation_runs_latest
    ON evaluation_runs (evaluation_key, status, created_at, id);

-- One row per metric value. The primary key's index serves scoring's read
-- of one metric of one run as one index range.
CREATE TABLE IF NOT EXISTS metric_values (
    evaluation_key         TEXT COLLATE "C" NOT NULL,
    run_id                 TEXT COLLATE "C" NOT NULL,
    metric_key             TEXT COLLATE "C" NOT NULL,
    task_specification_key TEXT COLLATE "C" NOT NULL,
    scorer_key             TEXT COLLATE "C" NOT NULL,
    value                  DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (evaluation_key, run_id, metric_key, task_specification_key, scorer_key)
);

-- The latest completed run of every evaluation key, kept up to date by every
-- write (under a per-key advisory lock), so all_latest scopes cost one row
-- per evaluation key.
CREATE TABLE IF NOT EXISTS latest_runs (
    evaluation_key TEXT COLLATE "C" PRIMARY KEY,
    id             TEXT COLLATE "C" NOT NULL,
    created_at     TEXT COLLATE "C" NOT NULL
);
