-- Schema version 6: what the hosts of one store share between requests.
-- The keys their tokens are signed with; the single-use tokens already
-- spent, kept until they expire; and long calls running as tasks, whose
-- body is the host's JSON, changed by compare-and-set on its version.
-- Times are whole seconds since the Unix epoch.

CREATE TABLE signing_keys (
    id         TEXT    PRIMARY KEY,
    secret     BYTEA   NOT NULL,
    created_at BIGINT NOT NULL,
    retires_at BIGINT
);

CREATE TABLE spent_tokens (
    digest     BYTEA   PRIMARY KEY,
    kept_until BIGINT NOT NULL
);
CREATE INDEX spent_tokens_by_kept_until ON spent_tokens (kept_until);

CREATE TABLE host_tasks (
    id          TEXT    PRIMARY KEY,
    owner       TEXT    NOT NULL,
    version     BIGINT NOT NULL,
    started_at  BIGINT NOT NULL,
    lease_until BIGINT NOT NULL,
    forget_at   BIGINT,
    body        TEXT    NOT NULL
);
CREATE INDEX host_tasks_by_owner ON host_tasks (owner);
CREATE INDEX host_tasks_by_forget_at ON host_tasks (forget_at);

-- A notification on every key change, once committed, so a host may keep
-- the keys it looked up until one changes. A key's recorded use is no
-- change.
CREATE FUNCTION index_keys_changed() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('index_keys_changed', '');
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER api_keys_changed
    AFTER INSERT OR DELETE OR UPDATE OF hash, user_id, scope, revoked, expires_at ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION index_keys_changed();
