-- Schema version 9: the audit record. One row per step a commit applied,
-- written in that commit's transaction: what was done (`step`, and a word
-- more in `detail`), to which negotiation and for which person, and who
-- did it (how they were authenticated, the public id of their key, the
-- request that carried it). `seq` grows with each row, so a reader pages
-- after the last one it read. Rows are never changed or removed: the
-- trigger refuses it, whoever asks.

CREATE TABLE audit (
    seq            BIGSERIAL PRIMARY KEY,
    at             BIGINT NOT NULL,
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
CREATE FUNCTION audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the audit record is append-only';
END;
$$;
CREATE TRIGGER audit_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON audit
    FOR EACH STATEMENT EXECUTE FUNCTION audit_append_only();
