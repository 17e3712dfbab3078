// A key's monitors as a file another install (or key) can import: each monitor as the body
// POST /api/monitors accepts. Secrets are never exported: each is left out and listed by its path.
import type { MonitorRecord } from '../../stores/monitors.js';

export const EXPORT_FORMAT = 'pagewatch.monitors';

export interface MonitorExport {
  format: typeof EXPORT_FORMAT;
  version: 1;
  exportedAt: string;
  monitors: Record<string, unknown>[];
  secretsOmitted: { name: string; fields: string[] }[];
  notes: string[];
}

export const EXPORT_NOTES = [
  'Channel ids are not exported: they belong to this key. Choose channels again after the import.',
  'Secrets (header and cookie values, the Basic-auth password, secret fill steps, request bodies) are left out; ' +
    'secretsOmitted lists them by monitor. Set them again after the import.',
];

/** One monitor's settings without its secrets, and the paths of the secrets left out. */
export function exportMonitor(monitor: MonitorRecord): { body: Record<string, unknown>; omitted: string[] } {
  const { channels: _channels, ...settings } = monitor.settings;
  const capture: Record<string, unknown> = { ...settings.capture };
  const omitted: string[] = [];
  const headers = settings.capture.headers;
  if (headers) {
    for (const name of Object.keys(headers)) omitted.push(`capture.headers.${name}`);
    delete capture.headers;
  }
  if (settings.capture.cookies) {
    settings.capture.cookies.forEach((c) => omitted.push(`capture.cookies.${c.name}`));
    delete capture.cookies;
  }
  if (settings.capture.httpCredentials) {
    omitted.push('capture.httpCredentials.password');
    delete capture.httpCredentials;
  }
  if (settings.capture.body !== undefined) {
    omitted.push('capture.body');
    delete capture.body;
    delete capture.bodyContentType;
  }
  if (settings.capture.steps) {
    // A secret fill step cannot be sent without its value: it is left out, and so is a login kept by steps
    // that are no longer whole.
    const steps = settings.capture.steps.filter((step, i) => {
      if (step.action === 'fill' && step.secret) omitted.push(`capture.steps.${i}.value`);
      return !(step.action === 'fill' && step.secret);
    });
    if (steps.length) capture.steps = steps;
    else delete capture.steps;
    if (steps.length !== settings.capture.steps.length && 'saveLogin' in capture) capture.saveLogin = false;
    if (!capture.steps) delete capture.loggedInWhen;
  }
  return { body: JSON.parse(JSON.stringify({ ...settings, capture })) as Record<string, unknown>, omitted };
}

export function exportMonitors(monitors: MonitorRecord[], exportedAt: string): MonitorExport {
  const bodies = monitors.map((m) => ({ name: m.settings.name, ...exportMonitor(m) }));
  return {
    format: EXPORT_FORMAT,
    version: 1,
    exportedAt,
    monitors: bodies.map((b) => b.body),
    secretsOmitted: bodies.filter((b) => b.omitted.length).map((b) => ({ name: b.name, fields: b.omitted })),
    notes: EXPORT_NOTES,
  };
}
