-- Many AI apps in one store (see the SQLite migration of the same version):
-- entities, runs, metric values and latest runs belong to an app, first in
-- every primary key and index. Rows already stored get app '' (no app yet);
-- the first command that opens the store for an app adopts them. PostgreSQL
-- changes the keys in place (the column goes last; lf store copy matches
-- columns by name).
ALTER TABLE entities ADD COLUMN app TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE entities ALTER COLUMN app DROP DEFAULT;
ALTER TABLE entities DROP CONSTRAINT entities_pkey, ADD PRIMARY KEY (app, kind, key);

ALTER TABLE evaluation_runs ADD COLUMN app TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE evaluation_runs ALTER COLUMN app DROP DEFAULT;
ALTER TABLE evaluation_runs DROP CONSTRAINT evaluation_runs_pkey, ADD PRIMARY KEY (app, evaluation_key, id);
DROP INDEX evaluation_runs_latest;
CREATE INDEX evaluation_runs_latest ON evaluation_runs (app, evaluation_key, status, created_at, id);

ALTER TABLE metric_values ADD COLUMN app TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE metric_values ALTER COLUMN app DROP DEFAULT;
ALTER TABLE metric_values DROP CONSTRAINT metric_values_pkey,
    ADD PRIMARY KEY (app, evaluation_key, run_id, metric_key, task_specification_key, scorer_key);

ALTER TABLE latest_runs ADD COLUMN app TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE latest_runs ALTER COLUMN app DROP DEFAULT;
ALTER TABLE latest_runs DROP CONSTRAINT latest_runs_pkey, ADD PRIMARY KEY (app, evaluation_key);
