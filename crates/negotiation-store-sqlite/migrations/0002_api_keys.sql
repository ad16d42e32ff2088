-- Schema version 2: a host's API keys, kept only as SHA-256 hashes.

CREATE TABLE api_keys (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    id      TEXT    NOT NULL UNIQUE,
    hash    BLOB    NOT NULL UNIQUE,
    user_id TEXT    NOT NULL,
    scope   TEXT    NOT NULL,
    revoked INTEGER NOT NULL DEFAULT 0
);
