-- Schema version 5: an API key's name, when it was made, when it expires
-- and when it was last used, each in whole seconds since the Unix epoch.
-- Keys made before this version have no making time.

ALTER TABLE api_keys
    ADD COLUMN name         TEXT,
    ADD COLUMN created_at   BIGINT,
    ADD COLUMN expires_at   BIGINT,
    ADD COLUMN last_used_at BIGINT;
