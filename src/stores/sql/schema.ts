// The database's tables as Kysely sees them (one row type per table), written from migrations/.
// Columns with a default are Generated: an insert may leave them out. Keep in step with new migrations.
import type { Generated } from 'kysely';

export interface ApiKeysTable {
  id: string;
  name: string;
  key_hash: string;
  key_prefix: string;
  webhook_secret: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  previous_webhook_secret: string | null;
  previous_secret_expires_at: string | null;
}

export interface CapturesTable {
  id: string;
  monitor_id: string;
  status: string;
  reason: string;
  spec_version: number;
  taken_at: string;
  duration_ms: number;
  width: number | null;
  height: number | null;
  sha256: string | null;
  image_key: string | null;
  diff_key: string | null;
  baseline_id: string | null;
  changed: Generated<number>;
  confirmed: Generated<number>;
  diff_pixels: Generated<number>;
  diff_ratio: Generated<number>;
  regions: Generated<string>;
  ignored_boxes: Generated<string>;
  truncated: Generated<number>;
  error_code: string | null;
  error_message: string | null;
  stored_bytes: Generated<number>;
  text_key: string | null;
  text_changes: Generated<string>;
  text_changes_total: Generated<number>;
  conditions: Generated<string>;
  condition_errors: Generated<string>;
  conditions_met: number | null;
  /** JSON: CaptureContent; NULL for captures from before content types. */
  content: string | null;
  /** JSON: ProductFacts; NULL when none was read. */
  product: string | null;
  /** saved | reused | expired | refused: what the capture did with the monitor's saved login. */
  login: Generated<string | null>;
}

export interface FeedsTable {
  id: string;
  key_id: string;
  scope: string;
  monitor_id: string | null;
  tag: string | null;
  /** SHA-256 (hex) of the feed's token: the token itself is never stored. */
  token_hash: string;
  created_at: string;
  rotated_at: string | null;
}

export interface IdempotencyKeysTable {
  key_id: string;
  idem_key: string;
  request_hash: string;
  job_id: string;
  created_at: string;
}

export interface InstanceTable {
  key: string;
  value: string;
}

export interface NodesTable {
  id: string;
  role: string;
  host: string;
  pid: number;
  version: string;
  started_at: string;
  heartbeat_at: string;
}

export interface JobsTable {
  id: string;
  key_id: string;
  kind: string;
  status: string;
  request: string;
  base_url: string;
  webhook_url: string | null;
  monitor_id: string | null;
  attempts: Generated<number>;
  lease_owner: string | null;
  lease_expires_at: string | null;
  error_code: string | null;
  error_message: string | null;
  result_key: string | null;
  result_type: string | null;
  result_bytes: number | null;
  result_meta: string | null;
  result_expires_at: string | null;
  result_removed_at: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** 0010: what the job keeps of `request` once it finishes (JSON). */
  kept_request: Generated<string>;
}

export interface MonitorsTable {
  id: string;
  key_id: string;
  name: string;
  url: string;
  schedule: string;
  timezone: string;
  paused: Generated<number>;
  capture: string;
  diff: string;
  notify: string;
  retention: string;
  webhook_url: string | null;
  base_url: string;
  spec_version: Generated<number>;
  last_run_at: string | null;
  next_run_at: string | null;
  last_status: string | null;
  last_change_at: string | null;
  last_tick_at: string | null;
  skipped_runs: Generated<number>;
  created_at: string;
  updated_at: string;
  notify_when: Generated<string>;
  /** 0014: JSON array of channel ids; NULL: the key's default channels. */
  channels: string | null;
  /** 0016: JSON array of the tags as given; tag_keys: the same lowercased, "|a|b|" (see domain/tags.ts). */
  tags: Generated<string>;
  tag_keys: Generated<string>;
}

/** 0014: a key's channels; `secrets` is sealed JSON of the write-only parts. */
export interface ChannelsTable {
  id: string;
  key_id: string;
  name: string;
  type: string;
  settings: string;
  secrets: string | null;
  is_default: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptsTable {
  delivery_id: string;
  attempt: Generated<number>;
  started_at: string;
  duration_ms: number;
  response_status: number | null;
  error: string | null;
}

export interface WebhookDeliveriesTable {
  id: string;
  key_id: string;
  message_id: string;
  event_type: string;
  url: string;
  payload: string;
  job_id: string | null;
  monitor_id: string | null;
  status: string;
  attempts: Generated<number>;
  schedule_from: Generated<number>;
  next_attempt_at: string | null;
  lease_expires_at: string | null;
  redeliver_requested: Generated<number>;
  last_attempt_at: string | null;
  last_response_status: number | null;
  last_error: string | null;
  created_at: string;
  /** 0014: channel deliveries (NULL: the monitor's or job's webhook). */
  channel_id: string | null;
  channel_type: string | null;
  held_for: string | null;
  batch: string | null;
}

export interface MonitorLoginsTable {
  monitor_id: string;
  key_id: string;
  /** SecretBox-sealed JSON storage state. */
  state: string;
  /** JSON array of origins. */
  origins: string;
  saved_at: string;
  expires_at: string;
}

export interface DB {
  api_keys: ApiKeysTable;
  captures: CapturesTable;
  channels: ChannelsTable;
  feeds: FeedsTable;
  idempotency_keys: IdempotencyKeysTable;
  instance: InstanceTable;
  jobs: JobsTable;
  monitors: MonitorsTable;
  monitor_logins: MonitorLoginsTable;
  nodes: NodesTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}
