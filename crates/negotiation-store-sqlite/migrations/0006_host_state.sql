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

-- A number every key change bumps in the change's own transaction, so a
-- host may keep the keys it looked up while the number stands: reading it
-- is much cheaper than reading a key. A key's recorded use is no change.
CREATE TABLE keys_version (
    version INTEGER NOT NULL
);
INSERT INTO keys_version (version) VALUES (0);
CREATE TRIGGER api_keys_inserted AFTER INSERT ON api_keys
BEGIN
    UPDATE keys_version SET version = version + 1;
END;
CREATE TRIGGER api_keys_changed
    AFTER UPDATE OF hash, user_id, scope, revoked, expires_at ON api_keys
BEGIN
    UPDATE keys_version SET version = version + 1;
END;
CREATE TRIGGER api_keys_deleted AFTER DELETE ON api_keys
BEGIN
    UPDATE keys_version SET version = version + 1;
END;
