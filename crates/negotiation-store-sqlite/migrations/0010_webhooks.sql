-- Schema version 10: webhooks. The endpoints people and operators
-- register (a NULL `user_id` is a host's, which hears of every
-- negotiation), and the outbox: one delivery row per endpoint that wants
-- an event, written in the transaction of the step it reports. `message`
-- is that step's audit entry, which names the event (`msg_<message>`);
-- `queue` is its negotiation (`person:<id>` for an interaction's):
-- deliveries of one endpoint and queue go out in `seq` order; `traceparent` is the committing
-- request's trace, which the delivery continues. A host claims a due delivery by
-- setting `lease_until`, and records each attempt's end.

CREATE TABLE webhook_endpoints (
    id              TEXT PRIMARY KEY,
    user_id         TEXT,
    url             TEXT NOT NULL,
    events          TEXT NOT NULL,
    secret          TEXT NOT NULL,
    previous_secret TEXT,
    previous_until  INTEGER,
    created_at      INTEGER NOT NULL,
    disabled_at     INTEGER,
    disabled_reason TEXT
);
CREATE TABLE webhook_deliveries (
    seq             INTEGER PRIMARY KEY,
    endpoint_id     TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    message         INTEGER NOT NULL,
    event           TEXT NOT NULL,
    queue           TEXT NOT NULL,
    body            TEXT NOT NULL,
    traceparent     TEXT,
    created_at      INTEGER NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    lease_until     INTEGER,
    done            INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX webhook_deliveries_queue ON webhook_deliveries (endpoint_id, queue, seq) WHERE NOT done;
CREATE INDEX webhook_deliveries_range ON webhook_deliveries (endpoint_id, created_at);
CREATE INDEX webhook_endpoints_user ON webhook_endpoints (user_id);
