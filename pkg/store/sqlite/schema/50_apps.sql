-- Many AI apps in one store: entities, runs, metric values and latest runs
-- belong to an app (the project's `app:` in lf.yaml, its folder name by
-- default, or --app / LF_APP), first in every primary key and index, so that
-- two projects' `quality_external` scorers never collide and `all_latest`
-- means the latest runs of one app. Agent-risk and alert tables stay as they
-- are: tenants are their scope.
--
-- SQLite cannot change a primary key in place, so each table is rebuilt.
-- Rows already stored get app '' (no app yet): the first command that opens
-- the store for an app adopts them (pkg/store UseApp; see docs/store.md).

CREATE TABLE entities_apps (
    app        TEXT NOT NULL,
    kind       TEXT NOT NULL,
    key        TEXT NOT NULL,
    body       TEXT NOT NULL,
    yaml       TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL,
    PRIMARY KEY (app, kind, key)
);
INSERT INTO entities_apps (app, kind, key, body, yaml, updated_at)
    SELECT '', kind, key, body, yaml, updated_at FROM entities;
DROP TABLE entities;
ALTER TABLE entities_apps RENAME TO entities;

CREATE TABLE evaluation_runs_apps (
    app            TEXT NOT NULL,
    evaluation_key TEXT NOT NULL,
    id             TEXT NOT NULL,
    created_at     TEXT NOT NULL, -- RFC 3339 in UTC, fixed width, so it sorts as text
    status         TEXT NOT NULL,
    body           TEXT NOT NULL, -- JSON of the run without its results
    yaml           TEXT NOT NULL DEFAULT '', -- canonical YAML as added, '' for runs recorded by lf
    writer_pid     INTEGER NOT NULL DEFAULT 0,
    writer_host    TEXT NOT NULL DEFAULT '',
    heartbeat_at   TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (app, evaluation_key, id)
);
INSERT INTO evaluation_runs_apps (app, evaluation_key, id, created_at, status, body, yaml, writer_pid, writer_host, heartbeat_at)
    SELECT '', evaluation_key, id, created_at, status, body, yaml, writer_pid, writer_host, heartbeat_at FROM evaluation_runs;
DROP TABLE evaluation_runs; -- drops its indexes too
ALTER TABLE evaluation_runs_apps RENAME TO evaluation_runs;

-- The latest-completed-run lookup walks this index backwards from
-- (app, evaluation_key, 'completed'): O(log runs).
CREATE INDEX evaluation_runs_latest
    ON evaluation_runs (app, evaluation_key, status, created_at, id);
CREATE INDEX evaluation_runs_writing
    ON evaluation_runs (writer_pid) WHERE writer_pid <> 0;

CREATE TABLE metric_values_apps (
    app                    TEXT NOT NULL,
    evaluation_key         TEXT NOT NULL,
    run_id                 TEXT NOT NULL,
    metric_key             TEXT NOT NULL,
    task_specification_key TEXT NOT NULL,
    scorer_key             TEXT NOT NULL,
    value                  REAL NOT NULL,
    PRIMARY KEY (app, evaluation_key, run_id, metric_key, task_specification_key, scorer_key)
) WITHOUT ROWID;
INSERT INTO metric_values_apps (app, evaluation_key, run_id, metric_key, task_specification_key, scorer_key, value)
    SELECT '', evaluation_key, run_id, metric_key, task_specification_key, scorer_key, value FROM metric_values;
DROP TABLE metric_values;
ALTER TABLE metric_values_apps RENAME TO metric_values;

CREATE TABLE latest_runs_apps (
    app            TEXT NOT NULL,
    evaluation_key TEXT NOT NULL,
    id             TEXT NOT NULL,
    created_at     TEXT NOT NULL,
    PRIMARY KEY (app, evaluation_key)
);
INSERT INTO latest_runs_apps (app, evaluation_key, id, created_at)
    SELECT '', evaluation_key, id, created_at FROM latest_runs;
DROP TABLE latest_runs;
ALTER TABLE latest_runs_apps RENAME TO latest_runs;
