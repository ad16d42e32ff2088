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
-- last_change orders listings, newest first: a number from the
-- negotiation_changes sequence, drawn again on each change. Rows written
-- before keep their opening order. Each seat's user has an index by last
-- change, alone and with the seat's intent, so a page of a user's
-- negotiations reads only that page's rows.

ALTER TABLE negotiations
    ADD COLUMN turn_count   INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN round_start  INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN window_start INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN last_change  BIGINT  NOT NULL DEFAULT 0;

CREATE TEMP TABLE rounds_walked ON COMMIT DROP AS
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
SELECT DISTINCT ON (seq) seq, turns, round_start, window_start
  FROM walk ORDER BY seq, turns DESC;

UPDATE negotiations n SET
    turn_count = r.turns,
    round_start = r.round_start,
    window_start = r.window_start,
    last_change = n.seq
  FROM rounds_walked r WHERE r.seq = n.seq;

CREATE SEQUENCE negotiation_changes;
SELECT setval('negotiation_changes', (SELECT coalesce(max(seq), 0) + 1 FROM negotiations), false);
ALTER TABLE negotiations ALTER COLUMN last_change SET DEFAULT nextval('negotiation_changes');

DROP INDEX negotiations_by_initiator;
DROP INDEX negotiations_by_responder;
CREATE INDEX negotiations_by_initiator ON negotiations (initiator_user_id, last_change);
CREATE INDEX negotiations_by_responder ON negotiations (responder_user_id, last_change);
CREATE INDEX negotiations_by_initiator_intent ON negotiations (initiator_user_id, initiator_intent_id, last_change);
CREATE INDEX negotiations_by_responder_intent ON negotiations (responder_user_id, responder_intent_id, last_change);
