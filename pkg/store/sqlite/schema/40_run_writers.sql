-- Who is writing a run that is still running: the writer's process id and
-- host and the time it last wrote, so that a run whose writer died (killed,
-- crashed) is recognised and removed by the next write or by `lf gc`.
-- Runs added from files, and finished runs, have writer_pid 0.
ALTER TABLE evaluation_runs ADD COLUMN writer_pid INTEGER NOT NULL DEFAULT 0;
ALTER TABLE evaluation_runs ADD COLUMN writer_host TEXT NOT NULL DEFAULT '';
ALTER TABLE evaluation_runs ADD COLUMN heartbeat_at TEXT NOT NULL DEFAULT '';

CREATE INDEX IF NOT EXISTS evaluation_runs_writing
    ON evaluation_runs (writer_pid) WHERE writer_pid <> 0;
