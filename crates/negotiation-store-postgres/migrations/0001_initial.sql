-- Schema version 1: negotiations, their seats, turns and message records.

CREATE TABLE negotiations (
    seq                 BIGSERIAL PRIMARY KEY,
    id                  TEXT    NOT NULL UNIQUE,
    initiator_user_id   TEXT    NOT NULL,
    initiator_intent_id TEXT    NOT NULL,
    responder_user_id   TEXT    NOT NULL,
    responder_intent_id TEXT    NOT NULL,
    awaiting_user_id    TEXT,
    outcome             TEXT,
    settled             BOOLEAN NOT NULL DEFAULT false,
    status              TEXT    NOT NULL DEFAULT 'negotiating'
);

CREATE INDEX negotiations_by_initiator ON negotiations (initiator_user_id);
CREATE INDEX negotiations_by_responder ON negotiations (responder_user_id);

-- Each seat's eligibility lives in its own row, read FOR SHARE by commits.
CREATE TABLE seats (
    negotiation_seq BIGINT  NOT NULL REFERENCES negotiations (seq),
    user_id         TEXT    NOT NULL,
    eligible        BOOLEAN NOT NULL DEFAULT true,
    PRIMARY KEY (negotiation_seq, user_id)
);

-- The primary key is the backstop for the commit contract: one turn per index.
CREATE TABLE turns (
    negotiation_seq BIGINT  NOT NULL REFERENCES negotiations (seq),
    turn_index      INTEGER NOT NULL,
    seat_user_id    TEXT    NOT NULL,
    action          TEXT    NOT NULL,
    message         TEXT    NOT NULL,
    PRIMARY KEY (negotiation_seq, turn_index)
);

CREATE TABLE messages (
    negotiation_seq BIGINT  NOT NULL REFERENCES negotiations (seq),
    position        INTEGER NOT NULL,
    sender_id       TEXT    NOT NULL,
    parts           TEXT    NOT NULL,
    PRIMARY KEY (negotiation_seq, position)
);
