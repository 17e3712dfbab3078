// Settings, monitors and captures for the monitors and captures contracts: complete typed records,
// written through the Backend's stores only.
import type { Backend } from '../../src/stores/backend.js';
import type { NewCapture } from '../../src/stores/captures.js';
import type { NamedSettings } from '../../src/domain/monitor-settings.js';

export function settings(over: Partial<NamedSettings> = {}): NamedSettings {
  return {
    name: 'watch',
    url: 'https://example.test/',
    schedule: '*/5 * * * *',
    timezone: 'UTC',
    paused: false,
    capture: {
      viewport: { width: 800, height: 600 },
      colorScheme: 'light',
      reducedMotion: 'reduce',
      javaScriptEnabled: true,
      waitUntil: 'load',
      delay: 0,
      timeout: 30_000,
      headers: { 'X-Token': 'enc:v1:sealed' },
      headersScope: 'origin',
      scrollPage: false,
      fullPage: false,
      omitBackground: false,
      animations: 'disabled',
      caret: 'hide',
      steps: [{ action: 'click', selector: '#ok' }],
    },
    diff: {
      mode: 'visual',
      ignoreText: ['\\d+'],
      threshold: 0.1,
      includeAA: false,
      minChangeRatio: 0,
      ignoreRegions: [{ x: 1, y: 2, width: 3, height: 4 }],
      ignoreSelectors: [],
      confirm: true,
      filters: [],
      filterMissingAfter: 3,
    },
    notifyWhen: [{ selector: '.price', numberBelow: 20 }],
    notify: ['change', 'failure'],
    tags: [],
    retention: { keep: 10 },
    ...over,
  };
}

export async function newKey(backend: Backend, name = 'k'): Promise<string> {
  return (await backend.stores.keys.create(name)).id;
}

export async function newMonitor(
  backend: Backend,
  keyId: string,
  id: string,
  at: string,
  over: Partial<NamedSettings> = {},
): Promise<void> {
  await backend.stores.monitors.insert(
    { id, keyId, settings: settings(over), baseUrl: 'http://pagewatch.test' },
    new Date(at),
  );
}

export function capture(id: string, monitorId: string, takenAt: string, over: Partial<NewCapture> = {}): NewCapture {
  return {
    id,
    monitorId,
    status: 'succeeded',
    reason: 'schedule',
    specVersion: 1,
    takenAt,
    durationMs: 1200,
    width: 800,
    height: 600,
    sha256: 'ab'.repeat(32),
    imageKey: `${monitorId}/${id}.png`,
    diffKey: null,
    baselineId: null,
    changed: false,
    confirmed: false,
    diffPixels: 0,
    diffRatio: 0,
    regions: [],
    ignoredBoxes: [],
    truncated: false,
    error: null,
    textKey: null,
    textChanges: [],
    textChangesTotal: 0,
    conditions: [],
    conditionErrors: [],
    conditionsMet: null,
    content: null,
    product: null,
    storedBytes: 0,
    ...over,
  };
}
