-- Schema version 6: what the hosts of one store share between requests.
-- The keys their tokens are signed with; the single-use tokens already
-- spent, kept until they expire; and long calls running as tasks, whose
-- body is the host's JSON, changed by compare-and-set on its version.
-- Times are whole seconds since the Unix epoch.

CREATE TABLE signing_keys (
    id         TEXT    PRIMARY KEY,
    secret     BLOB    NOT NULL,
    created_at INTEGER NOT NULL,
    retires_at INTEGER
);

CREATE TABLE spent_tokens (
    digest     BLOB    PRIMARY KEY,
    kept_until INTEGER NOT NULL
);
CREATE INDEX spent_tokens_by_kept_until ON spent_tokens (kept_until);

CREATE TABLE host_tasks (
    id          TEXT    PRIMARY KEY,
    owner       TEXT    NOT NULL,
    version     INTEGER NOT NULL,
    started_at  INTEGER NOT NULL,
    lease_until INTEGER NOT NULL,
    forget_at   INTEGER,
    body        TEXT    NOT NULL
);
CREATE INDEX host_tasks_by_owner ON host_tasks (owner);
CREATE INDEX host_tasks_by_forget_at ON host_tasks (forget_at);
