-- Schema version 7: the interactions a host provides. Each is its
-- person's (ids are unique per person), indexed by where it was asked and
-- where it stands; its body is the host's JSON, changed by compare-and-set
-- on its version. Every response command's acknowledgement is kept under
-- its operation id, per person, so a retried command is answered exactly
-- as the first time. Times are milliseconds since the Unix epoch. Every
-- change to an interaction wakes the hosts waiting on the change feed.

CREATE TABLE interactions (
    owner          TEXT    NOT NULL,
    id             TEXT    NOT NULL,
    run_id         TEXT    NOT NULL,
    environment_id TEXT    NOT NULL,
    session_id     TEXT    NOT NULL,
    status         TEXT    NOT NULL
        CHECK (status IN ('pending', 'resolved', 'expired', 'cancelled')),
    created_at_ms  BIGINT  NOT NULL,
    version        BIGINT  NOT NULL,
    body           TEXT    NOT NULL,
    PRIMARY KEY (owner, id)
);
CREATE INDEX interactions_by_run
    ON interactions (owner, run_id, environment_id, session_id);
CREATE INDEX interactions_by_age ON interactions (owner, created_at_ms, id);

CREATE TABLE interaction_acknowledgements (
    seq             BIGSERIAL PRIMARY KEY,
    owner           TEXT    NOT NULL,
    operation_id    TEXT    NOT NULL,
    acknowledgement TEXT    NOT NULL,
    UNIQUE (owner, operation_id)
);

CREATE FUNCTION index_interaction_changed() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('index_negotiation_changed', '');
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER interactions_changed AFTER INSERT OR UPDATE ON interactions
    FOR EACH ROW EXECUTE FUNCTION index_interaction_changed();
