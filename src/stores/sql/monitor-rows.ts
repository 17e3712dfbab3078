// The row side of the monitors table: a row as a MonitorRecord (the settings' JSON columns parsed here and
// nowhere else) and a monitor's settings as the columns that store them.
import type { Selectable } from 'kysely';
import type { CaptureOptions, MonitorSettings, NamedSettings } from '../../domain/monitor-settings.js';
import type { MonitorRecord } from '../monitors.js';
import type { MonitorStatus } from '../../domain/capture-findings.js';
import type { MonitorsTable } from './schema.js';
import { tagKeysText } from '../../domain/tags.js';

type Row = Selectable<MonitorsTable>;

export function toRecord(r: Row): MonitorRecord {
  return {
    id: r.id,
    keyId: r.key_id,
    settings: {
      name: r.name,
      url: r.url,
      schedule: r.schedule,
      timezone: r.timezone,
      paused: r.paused === 1,
      capture: JSON.parse(r.capture) as CaptureOptions,
      // Settings added since a monitor was stored read as their defaults.
      diff: {
        filters: [],
        filterMissingAfter: 3,
        ...(JSON.parse(r.diff) as Partial<MonitorSettings['diff']>),
      } as MonitorSettings['diff'],
      notifyWhen: JSON.parse(r.notify_when) as MonitorSettings['notifyWhen'],
      notify: JSON.parse(r.notify) as MonitorSettings['notify'],
      retention: JSON.parse(r.retention) as MonitorSettings['retention'],
      ...(r.webhook_url !== null && { webhookUrl: r.webhook_url }),
      ...(r.channels !== null && { channels: JSON.parse(r.channels) as string[] }),
      tags: JSON.parse(r.tags) as string[],
    },
    baseUrl: r.base_url,
    specVersion: r.spec_version,
    lastRunAt: r.last_run_at,
    nextRunAt: r.next_run_at,
    lastStatus: r.last_status as MonitorStatus | null,
    lastChangeAt: r.last_change_at,
    skippedRuns: r.skipped_runs,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function settingsColumns(s: NamedSettings) {
  return {
    name: s.name,
    url: s.url,
    schedule: s.schedule,
    timezone: s.timezone,
    paused: s.paused ? 1 : 0,
    capture: JSON.stringify(s.capture),
    diff: JSON.stringify(s.diff),
    notify_when: JSON.stringify(s.notifyWhen),
    notify: JSON.stringify(s.notify),
    retention: JSON.stringify(s.retention),
    webhook_url: s.webhookUrl ?? null,
    channels: s.channels === undefined ? null : JSON.stringify(s.channels),
    tags: JSON.stringify(s.tags),
    tag_keys: tagKeysText(s.tags),
  };
}
