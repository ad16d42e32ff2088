-- Schema version 8: keys an OAuth authorization made. `kind` says how a
-- key came to be ('api', 'oauth' for an access token, 'oauth_refresh' for
-- a refresh token); `grant_id` is shared by every token of one
-- authorization, which are revoked together; `client` is the OAuth client
-- the grant was made for. Keys made before this version are API keys.

ALTER TABLE api_keys ADD COLUMN kind     TEXT NOT NULL DEFAULT 'api';
ALTER TABLE api_keys ADD COLUMN grant_id TEXT;
ALTER TABLE api_keys ADD COLUMN client   TEXT;
CREATE INDEX api_keys_grant ON api_keys (grant_id) WHERE grant_id IS NOT NULL;
