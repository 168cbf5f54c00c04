-- Who is writing a run that is still running (see the SQLite migration of
-- the same version): writer process id and host, and its last heartbeat.
ALTER TABLE evaluation_runs ADD COLUMN IF NOT EXISTS writer_pid INTEGER NOT NULL DEFAULT 0;
ALTER TABLE evaluation_runs ADD COLUMN IF NOT EXISTS writer_host TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE evaluation_runs ADD COLUMN IF NOT EXISTS heartbeat_at TEXT COLLATE "C" NOT NULL DEFAULT '';

CREATE INDEX IF NOT EXISTS evaluation_runs_writing
    ON evaluation_runs (writer_pid) WHERE writer_pid <> 0;
