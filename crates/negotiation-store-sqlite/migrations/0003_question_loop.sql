-- Schema version 3: the question loop in the negotiation's row, so a park
-- and an answer are decided under the same lock as a turn.
--
-- ask_rounds counts every park, answered or not; park_* hold the last one
-- (park_answer NULL while the negotiation waits on it). Stores written by
-- an earlier version kept parks only as messages in the record: they are
-- read back from there, the way that version read them (a park is a
-- message whose first data part has action "ask_user", sent by
-- "agent:{userId}"; its answer is the first later message whose first
-- data part has action "ask_user_answer").

ALTER TABLE negotiations ADD COLUMN ask_rounds INTEGER NOT NULL DEFAULT 0;
ALTER TABLE negotiations ADD COLUMN park_user_id TEXT;
ALTER TABLE negotiations ADD COLUMN park_question TEXT;
ALTER TABLE negotiations ADD COLUMN park_answer TEXT;

CREATE TEMP TABLE question_loop_parts AS
SELECT m.negotiation_seq AS seq, m.position, m.sender_id,
       (SELECT p.value FROM json_each(m.parts) p
         WHERE json_extract(p.value, '$.kind') = 'data'
         ORDER BY p.key LIMIT 1) AS part
  FROM messages m
 WHERE json_valid(m.parts) AND json_type(m.parts) = 'array';

CREATE TEMP TABLE question_loop_asks AS
SELECT seq, position, sender_id, part FROM question_loop_parts
 WHERE json_extract(part, '$.data.action') = 'ask_user';

CREATE TEMP TABLE question_loop_last AS
SELECT a.seq, a.position, substr(a.sender_id, 7) AS user_id,
       json_extract(a.part, '$.data.askUser.question') AS question
  FROM question_loop_asks a
 WHERE a.position = (SELECT max(b.position) FROM question_loop_asks b WHERE b.seq = a.seq)
   AND a.sender_id LIKE 'agent:_%'
   AND json_type(a.part, '$.data.askUser.question') = 'object';

UPDATE negotiations SET ask_rounds = (SELECT count(*) FROM question_loop_asks a WHERE a.seq = negotiations.seq)
 WHERE seq IN (SELECT seq FROM question_loop_asks);

UPDATE negotiations SET
    park_user_id = (SELECT l.user_id FROM question_loop_last l WHERE l.seq = negotiations.seq),
    park_question = (SELECT l.question FROM question_loop_last l WHERE l.seq = negotiations.seq),
    park_answer = (SELECT json_extract(p.part, '$.data.answer')
                     FROM question_loop_parts p JOIN question_loop_last l ON l.seq = p.seq
                    WHERE p.seq = negotiations.seq AND p.position > l.position
                      AND json_extract(p.part, '$.data.action') = 'ask_user_answer'
                    ORDER BY p.position LIMIT 1)
 WHERE seq IN (SELECT seq FROM question_loop_last);

DROP TABLE question_loop_parts;
DROP TABLE question_loop_asks;
DROP TABLE question_loop_last;
