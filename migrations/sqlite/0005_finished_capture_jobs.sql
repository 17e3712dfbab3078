-- Finished capture jobs are swept after an hour (their outcome lives in the captures table): find them by age.
CREATE INDEX jobs_finished_captures ON jobs (finished_at) WHERE kind = 'capture' AND finished_at IS NOT NULL;
