-- Monitors that watch anything (issue 27): each capture records what the URL served and the product's
-- price and stock it read. Older captures have neither (NULL: an HTML page, nothing read).
ALTER TABLE captures ADD COLUMN content text COLLATE "C";  -- JSON: {kind, mediaType, bytes, pages?, pagesRead?, cut?, sha256?}
ALTER TABLE captures ADD COLUMN product text COLLATE "C";  -- JSON: {price, currency, availability, source}
