-- Schema version 9: the audit record. One row per step a commit applied,
-- written in that commit's transaction: what was done (`step`, and a word
-- more in `detail`), to which negotiation and for which person, and who
-- did it (how they were authenticated, the public id of their key, the
-- request that carried it). `seq` only grows, so a reader pages after the
-- last one it read (no AUTOINCREMENT is needed for that: rows are never
-- removed, so no rowid is ever used twice). Rows are never changed or
-- removed: the triggers refuse it, whoever asks.

CREATE TABLE audit (
    seq            INTEGER PRIMARY KEY,
    at             INTEGER NOT NULL,
    step           TEXT NOT NULL,
    negotiation_id TEXT,
    user_id        TEXT,
    detail         TEXT,
    actor_kind     TEXT NOT NULL,
    key_id         TEXT,
    request_id     TEXT
);
CREATE INDEX audit_negotiation ON audit (negotiation_id, seq);
CREATE INDEX audit_user ON audit (user_id, seq);
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
BEGIN
    SELECT RAISE(ABORT, 'the audit record is append-only');
END;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
BEGIN
    SELECT RAISE(ABORT, 'the audit record is append-only');
END;
