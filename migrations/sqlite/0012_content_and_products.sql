-- Monitors that watch anything (issue 27): each capture records what the URL served and the product's
-- price and stock it read. Older captures have neither (NULL: an HTML page, nothing read).
ALTER TABLE captures ADD COLUMN content TEXT;  -- JSON: {kind, mediaType, bytes, pages?, pagesRead?, cut?, sha256?}
ALTER TABLE captures ADD COLUMN product TEXT;  -- JSON: {price, currency, availability, source}
