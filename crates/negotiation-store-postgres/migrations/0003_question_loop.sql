-- Schema version 3: the question loop in the negotiation's row, so a park
-- and an answer are decided under the same row lock as a turn.
--
-- ask_rounds counts every park, answered or not; park_* hold the last one
-- (park_answer NULL while the negotiation waits on it). Stores written by
-- an earlier version kept parks only as messages in the record: they are
-- read back from there, the way that version read them (a park is a
-- message whose first data part has action "ask_user", sent by
-- "agent:{userId}"; its answer is the first later message whose first
-- data part has action "ask_user_answer"). A record that is not JSON is
-- left out, not a reason to fail.

ALTER TABLE negotiations
    ADD COLUMN ask_rounds   INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN park_user_id TEXT,
    ADD COLUMN park_question TEXT,
    ADD COLUMN park_answer  TEXT;

CREATE FUNCTION pg_temp.index_parts(parts text) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN parts::jsonb;
EXCEPTION WHEN others THEN
    RETURN NULL;
END
$$;

CREATE TEMP TABLE question_loop_parts ON COMMIT DROP AS
SELECT m.negotiation_seq AS seq, m.position, m.sender_id,
       (SELECT p.value FROM jsonb_array_elements(j.parts) WITH ORDINALITY AS p (value, n)
         WHERE p.value ->> 'kind' = 'data' ORDER BY p.n LIMIT 1) AS part
  FROM messages m
 CROSS JOIN LATERAL (SELECT pg_temp.index_parts(m.parts) AS parts) j
 WHERE jsonb_typeof(j.parts) = 'array';

CREATE TEMP TABLE question_loop_asks ON COMMIT DROP AS
SELECT seq, position, sender_id, part FROM question_loop_parts
 WHERE part -> 'data' ->> 'action' = 'ask_user';

CREATE TEMP TABLE question_loop_last ON COMMIT DROP AS
SELECT a.seq, a.position, substr(a.sender_id, 7) AS user_id,
       (a.part -> 'data' -> 'askUser' -> 'question')::text AS question
  FROM question_loop_asks a
 WHERE a.position = (SELECT max(b.position) FROM question_loop_asks b WHERE b.seq = a.seq)
   AND a.sender_id LIKE 'agent:_%'
   AND jsonb_typeof(a.part -> 'data' -> 'askUser' -> 'question') = 'object';

UPDATE negotiations n SET ask_rounds = (SELECT count(*) FROM question_loop_asks a WHERE a.seq = n.seq)
 WHERE n.seq IN (SELECT seq FROM question_loop_asks);

UPDATE negotiations n SET
    park_user_id = l.user_id,
    park_question = l.question,
    park_answer = (SELECT p.part -> 'data' ->> 'answer'
                     FROM question_loop_parts p
                    WHERE p.seq = n.seq AND p.position > l.position
                      AND p.part -> 'data' ->> 'action' = 'ask_user_answer'
                    ORDER BY p.position LIMIT 1)
  FROM question_loop_last l
 WHERE l.seq = n.seq;

DROP TABLE question_loop_parts, question_loop_asks, question_loop_last;
DROP FUNCTION pg_temp.index_parts(text);
