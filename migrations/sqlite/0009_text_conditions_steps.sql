-- Monitors that say what changed: text changes, the elements behind each region, notifyWhen rules
-- and steps. Old monitors keep working: every new setting gets its default.

ALTER TABLE monitors ADD COLUMN notify_when TEXT NOT NULL DEFAULT '[]';  -- JSON array of rules
UPDATE monitors SET diff = json_set(diff, '$.mode', 'visual') WHERE json_extract(diff, '$.mode') IS NULL;
UPDATE monitors SET diff = json_set(diff, '$.ignoreText', json('[]')) WHERE json_extract(diff, '$.ignoreText') IS NULL;
-- 0.001 was the old default of minChangeRatio, and the reason a price change on a tall page went unseen.
-- Regions now decide; a monitor still holding exactly that default gets the new one (0: off).
UPDATE monitors SET diff = json_set(diff, '$.minChangeRatio', 0) WHERE json_extract(diff, '$.minChangeRatio') = 0.001;
UPDATE monitors SET capture = json_set(capture, '$.steps', json('[]')) WHERE json_extract(capture, '$.steps') IS NULL;

ALTER TABLE captures ADD COLUMN text_key TEXT;                                 -- file: the page's text blocks (JSON)
ALTER TABLE captures ADD COLUMN text_changes TEXT NOT NULL DEFAULT '[]';       -- JSON: at most 50 text changes
ALTER TABLE captures ADD COLUMN text_changes_total INTEGER NOT NULL DEFAULT 0; -- all of them, counted
ALTER TABLE captures ADD COLUMN conditions TEXT NOT NULL DEFAULT '[]';         -- JSON: each notifyWhen rule's outcome
ALTER TABLE captures ADD COLUMN condition_errors TEXT NOT NULL DEFAULT '[]';   -- JSON: why a rule could not be read
ALTER TABLE captures ADD COLUMN conditions_met INTEGER;                        -- NULL: the monitor has no rules
