-- Monitors carry tags (issue 28): `tags` as given (JSON array), `tag_keys` the same lowercased between bars
-- ("|news|eu|"), so a case-insensitive filter is one LIKE on either database.
ALTER TABLE monitors ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
ALTER TABLE monitors ADD COLUMN tag_keys TEXT NOT NULL DEFAULT '';
