-- Saved logins (issue 28): the browser state a monitor's steps signed in with, kept sealed so later
-- captures start from it instead of logging in again. One row per monitor, gone with the monitor.
-- `state` is the SecretBox-sealed storage state (cookies and localStorage of `origins`); `key_id` says
-- whose it is, so no query of another key can reach it. captures.login says what a capture did with it.
CREATE TABLE monitor_logins (
  monitor_id text COLLATE "C" PRIMARY KEY REFERENCES monitors(id) ON DELETE CASCADE,
  key_id     text COLLATE "C" NOT NULL,
  state      text NOT NULL,
  origins    text NOT NULL,               -- JSON array of the origins whose state is kept
  saved_at   text COLLATE "C" NOT NULL,
  expires_at text COLLATE "C" NOT NULL
);
ALTER TABLE captures ADD COLUMN login text CHECK (login IN ('saved', 'reused', 'expired', 'refused'));
-- Monitors stored before saved logins keep none: their capture options say so, as a new one's do.
UPDATE monitors SET capture = jsonb_set(capture::jsonb, '{saveLogin}', 'false')::text
  WHERE NOT (capture::jsonb ? 'saveLogin');
