-- Schema version 2: a host's API keys, kept only as SHA-256 hashes, and a
-- notification on every change to a negotiation, so hosts waiting on one
-- (in any process) wake on LISTEN instead of polling.

CREATE TABLE api_keys (
    seq     BIGSERIAL PRIMARY KEY,
    id      TEXT    NOT NULL UNIQUE,
    hash    BYTEA   NOT NULL UNIQUE,
    user_id TEXT    NOT NULL,
    scope   TEXT    NOT NULL,
    revoked BOOLEAN NOT NULL DEFAULT false
);

CREATE FUNCTION index_negotiation_changed() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('index_negotiation_changed', NEW.id);
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER negotiations_changed AFTER INSERT OR UPDATE ON negotiations
    FOR EACH ROW EXECUTE FUNCTION index_negotiation_changed();
