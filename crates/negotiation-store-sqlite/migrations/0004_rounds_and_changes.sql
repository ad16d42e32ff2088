-- Schema version 4: what a decision and a listing read, kept in the row.
--
-- turn_count is the number of turns; round_start is the index of the first
-- turn of the round in progress, window_start that of the round before it
-- (the same before any round ended). A commit reads the turns from
-- window_start on: the rules read only the round in progress and the last
-- turn, so what it reads no longer grows with the log. A round ends at a
-- decline or at its twelfth turn (NEGOTIATION_MAX_TURNS); the walk below
-- replays each stored log by that rule once.
--
-- last_change orders listings, newest first: a number no other row has,
-- raised past every other on each change. Rows written before keep their
-- opening order. Each seat's user has an index by last change, alone and
-- with the seat's intent, so a page of a user's negotiations reads only
-- that page's rows.

ALTER TABLE negotiations ADD COLUMN turn_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE negotiations ADD COLUMN round_start INTEGER NOT NULL DEFAULT 0;
ALTER TABLE negotiations ADD COLUMN window_start INTEGER NOT NULL DEFAULT 0;
ALTER TABLE negotiations ADD COLUMN last_change INTEGER NOT NULL DEFAULT 0;

CREATE TEMP TABLE rounds_walked AS
WITH RECURSIVE walk (seq, turns, round_start, window_start) AS (
    SELECT seq, 0, 0, 0 FROM negotiations
    UNION ALL
    SELECT w.seq, w.turns + 1,
           CASE WHEN t.action = 'decline' OR w.turns + 1 - w.round_start >= 12
                THEN w.turns + 1 ELSE w.round_start END,
           CASE WHEN t.action = 'decline' OR w.turns + 1 - w.round_start >= 12
                THEN w.round_start ELSE w.window_start END
      FROM walk w JOIN turns t ON t.negotiation_seq = w.seq AND t.turn_index = w.turns
)
SELECT seq, turns, round_start, window_start FROM walk;

CREATE INDEX temp.rounds_walked_by_seq ON rounds_walked (seq, turns);

UPDATE negotiations SET
    turn_count = (SELECT r.turns FROM rounds_walked r WHERE r.seq = negotiations.seq
                   ORDER BY r.turns DESC LIMIT 1),
    round_start = (SELECT r.round_start FROM rounds_walked r WHERE r.seq = negotiations.seq
                    ORDER BY r.turns DESC LIMIT 1),
    window_start = (SELECT r.window_start FROM rounds_walked r WHERE r.seq = negotiations.seq
                     ORDER BY r.turns DESC LIMIT 1),
    last_change = seq;

DROP TABLE rounds_walked;

DROP INDEX negotiations_by_initiator;
DROP INDEX negotiations_by_responder;
CREATE UNIQUE INDEX negotiations_by_change ON negotiations (last_change);
CREATE INDEX negotiations_by_initiator ON negotiations (initiator_user_id, last_change);
CREATE INDEX negotiations_by_responder ON negotiations (responder_user_id, last_change);
CREATE INDEX negotiations_by_initiator_intent ON negotiations (initiator_user_id, initiator_intent_id, last_change);
CREATE INDEX negotiations_by_responder_intent ON negotiations (responder_user_id, responder_intent_id, last_change);
