-- Schema version 1: negotiations, their turns and their message records.

CREATE TABLE negotiations (
    seq                 INTEGER PRIMARY KEY AUTOINCREMENT,
    id                  TEXT    NOT NULL UNIQUE,
    initiator_user_id   TEXT    NOT NULL,
    initiator_intent_id TEXT    NOT NULL,
    responder_user_id   TEXT    NOT NULL,
    responder_intent_id TEXT    NOT NULL,
    initiator_eligible  INTEGER NOT NULL DEFAULT 1,
    responder_eligible  INTEGER NOT NULL DEFAULT 1,
    awaiting_user_id    TEXT,
    outcome             TEXT,
    settled             INTEGER NOT NULL DEFAULT 0,
    status              TEXT    NOT NULL DEFAULT 'negotiating'
);

CREATE INDEX negotiations_by_initiator ON negotiations (initiator_user_id);
CREATE INDEX negotiations_by_responder ON negotiations (responder_user_id);

-- The primary key is the backstop for the commit contract: one turn per index.
CREATE TABLE turns (
    negotiation_seq INTEGER NOT NULL REFERENCES negotiations (seq),
    turn_index      INTEGER NOT NULL,
    seat_user_id    TEXT    NOT NULL,
    action          TEXT    NOT NULL,
    message         TEXT    NOT NULL,
    PRIMARY KEY (negotiation_seq, turn_index)
) WITHOUT ROWID;

CREATE TABLE messages (
    negotiation_seq INTEGER NOT NULL REFERENCES negotiations (seq),
    position        INTEGER NOT NULL,
    sender_id       TEXT    NOT NULL,
    parts           TEXT    NOT NULL,
    PRIMARY KEY (negotiation_seq, position)
) WITHOUT ROWID;
