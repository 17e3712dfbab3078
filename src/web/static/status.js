// The status page: reads /api/status every 2 s (while the tab is visible) and fills the tiles. Where the
// service keeps its figures for key holders (auth.publicOperations false) it sends the key the dashboard
// saved; elsewhere it sends none, so a stale saved key cannot lock a person out of a public page.
import { api, storedKey } from '/assets/api.js';
import { clusterValues, markAttention, renderDiskBar, renderFailing } from '/assets/status-cluster.js';
import { utcDateTime, utcTime } from '/assets/status-format.js';
import { renderHour } from '/assets/status-hour.js';

const REFRESH_MS = 2000;
const overall = document.getElementById('overall');
const errorBox = document.getElementById('error');
const updated = document.getElementById('updated');

function duration(seconds) {
  const d = Math.floor(seconds / 86400),
    h = Math.floor((seconds % 86400) / 3600),
    m = Math.floor((seconds % 3600) / 60);
  if (d) return `${d} d ${h} h`;
  if (h) return `${h} h ${m} min`;
  if (m) return `${m} min ${seconds % 60} s`;
  return `${seconds} s`;
}

function when(iso) {
  const ms = Date.parse(iso) - Date.now();
  const words =
    ms < 60_000
      ? `in ${Math.max(0, Math.round(ms / 1000))} s`
      : ms < 3_600_000
        ? `in ${Math.round(ms / 60_000)} min`
        : utcDateTime(iso);
  return words;
}

/** The text (or nodes) each field shows. */
function render(s) {
  const values = {
    version: s.version,
    uptime: duration(s.uptimeSeconds),
    startedAt: utcDateTime(s.startedAt),
    'browser.up': s.browser.up ? 'Up' : 'Down',
    'browser.version': s.browser.version ?? '–',
    'browser.renders': s.browser.renders,
    'browser.restarts': s.browser.restarts,
    'browser.warmPages': s.browser.warmPages,
    'render.active': s.render.active,
    'render.queued': s.render.queued,
    'render.concurrency': s.render.concurrency,
    'render.queueSize': s.render.queueSize,
    'monitors.active': s.monitors.active,
    'monitors.paused': s.monitors.paused,
    'webhooks.pending': s.webhooks.pending,
    'webhooks.succeeded': s.webhooks.succeeded,
    'webhooks.failed': s.webhooks.failed,
    ...clusterValues(s),
  };
  for (const [status, n] of Object.entries(s.jobs)) values[`jobs.${status}`] = n;
  for (const el of document.querySelectorAll('[data-field]')) {
    const field = el.dataset.field;
    if (field === 'monitors.nextRuns') {
      const list = document.createElement('ul');
      for (const at of s.monitors.nextRuns) {
        const item = document.createElement('li');
        const time = document.createElement('time');
        time.dateTime = at;
        time.title = utcDateTime(at);
        time.textContent = when(at);
        item.append(time);
        list.append(item);
      }
      el.replaceChildren(s.monitors.nextRuns.length ? list : 'none scheduled');
    } else if (field in values) {
      el.textContent = String(values[field]);
    }
  }
  const healthy = s.browser.up;
  overall.textContent = healthy ? 'All systems working' : 'Degraded: the browser is down';
  overall.className = `badge ${healthy ? 'ok' : 'error'}`;
  updated.dateTime = s.time;
  updated.textContent = utcTime(s.time);
  renderHour(s);
  renderDiskBar(s);
  markAttention(s);
  void renderFailing(s.monitors.failing);
}

let needsKey = false;

async function statusWithKeyIfNeeded() {
  if (!needsKey) {
    try {
      return await api('GET', '/api/status');
    } catch (err) {
      if (err.status !== 401 || !storedKey()) throw err;
      needsKey = true;
    }
  }
  return api('GET', '/api/status', { key: storedKey() });
}

async function refresh() {
  try {
    const res = await statusWithKeyIfNeeded();
    render(await res.json());
    errorBox.hidden = true;
  } catch (err) {
    if (err.status === 401) {
      const link = Object.assign(document.createElement('a'), {
        href: '/monitors',
        textContent: 'Save one on the Monitors page',
      });
      errorBox.replaceChildren(
        `This service shows its status to API key holders only, and this browser has no valid key. `,
        link,
        ' (it is kept in this browser), then come back.',
      );
      overall.textContent = 'Needs an API key';
    } else {
      errorBox.textContent = err.explanation ?? String(err);
      overall.textContent = 'Unreachable';
    }
    errorBox.hidden = false;
    overall.className = 'badge error';
  }
}

let timer;
function schedule() {
  clearTimeout(timer);
  if (document.visibilityState === 'visible')
    timer = setTimeout(async () => {
      await refresh();
      schedule();
    }, REFRESH_MS);
}
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') refresh().then(schedule);
});
refresh().then(schedule);
