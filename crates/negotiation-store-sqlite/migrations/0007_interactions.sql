-- Schema version 7: the interactions a host provides. Each is its
-- person's (ids are unique per person), indexed by where it was asked and
-- where it stands; its body is the host's JSON, changed by compare-and-set
-- on its version. Every response command's acknowledgement is kept under
-- its operation id, per person, so a retried command is answered exactly
-- as the first time. Times are milliseconds since the Unix epoch.

CREATE TABLE interactions (
    owner          TEXT    NOT NULL,
    id             TEXT    NOT NULL,
    run_id         TEXT    NOT NULL,
    environment_id TEXT    NOT NULL,
    session_id     TEXT    NOT NULL,
    status         TEXT    NOT NULL
        CHECK (status IN ('pending', 'resolved', 'expired', 'cancelled')),
    created_at_ms  INTEGER NOT NULL,
    version        INTEGER NOT NULL,
    body           TEXT    NOT NULL,
    PRIMARY KEY (owner, id)
);
CREATE INDEX interactions_by_run
    ON interactions (owner, run_id, environment_id, session_id);
CREATE INDEX interactions_by_age ON interactions (owner, created_at_ms, id);

CREATE TABLE interaction_acknowledgements (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    owner           TEXT    NOT NULL,
    operation_id    TEXT    NOT NULL,
    acknowledgement TEXT    NOT NULL,
    UNIQUE (owner, operation_id)
);
