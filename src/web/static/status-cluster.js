// The status page's figures from the database, the same whichever node answers: failing monitors,
// the webhook backlog and the last hour's deliveries, and disk used. Where this browser holds an API key
// (saved on the Monitors page), the failing monitors of that key are named; the public figures never name
// anyone's monitors.
import { api, storedKey } from '/assets/api.js';
import { ago, bytes, utcDateTime } from '/assets/status-format.js';

/** The [data-field] texts of these figures. */
export function clusterValues(s) {
  const w = s.webhookDeliveries;
  const values = {};
  if (s.monitors.failing !== undefined) values['monitors.failing'] = s.monitors.failing;
  if (w) {
    values['webhookDeliveries.retrying'] = w.retrying;
    values['webhookDeliveries.oldest'] = w.oldestPendingAt
      ? `${ago(w.oldestPendingAt, s.time)} (${utcDateTime(w.oldestPendingAt)})`
      : 'none waiting';
    values['webhookDeliveries.lastHour.succeeded'] = w.lastHour.succeeded;
    values['webhookDeliveries.lastHour.failed'] = w.lastHour.failed;
  }
  if (s.storage) {
    values['storage.captureBytes'] = bytes(s.storage.captureBytes);
    values['storage.resultBytes'] = bytes(s.storage.resultBytes);
    values['storage.total'] = bytes(s.storage.captureBytes + s.storage.resultBytes);
  }
  return values;
}

/** Figures that want attention (a failing monitor, deliveries failed or retrying) are marked. */
export function markAttention(s) {
  const w = s.webhookDeliveries;
  const marks = {
    'monitors.failing': s.monitors.failing > 0,
    'webhookDeliveries.retrying': w?.retrying > 0,
    'webhookDeliveries.lastHour.failed': w?.lastHour.failed > 0,
  };
  for (const [field, on] of Object.entries(marks)) {
    const el = document.querySelector(`[data-field="${field}"]`);
    if (el) el.classList.toggle('attention', Boolean(on));
  }
}

/** The disk bar: captures and results as shares of the whole (a picture of the figures beside it). */
export function renderDiskBar(s) {
  const bar = document.getElementById('disk-bar');
  if (!s.storage || !bar) return;
  const total = s.storage.captureBytes + s.storage.resultBytes;
  bar.hidden = total === 0;
  const share = (n) => `${total ? (n / total) * 100 : 0}%`;
  bar.querySelector('.d-captures').style.width = share(s.storage.captureBytes);
  bar.querySelector('.d-results').style.width = share(s.storage.resultBytes);
}

const LIST_EVERY_MS = 30_000; // the list costs the key a request: not every 2 s
let listed = { count: -1, at: 0 };

/** Names the key's failing monitors under the count (or says how to see them). */
export async function renderFailing(count) {
  const box = document.getElementById('failing-list');
  if (!box) return;
  if (!count) {
    listed = { count: 0, at: Date.now() };
    box.replaceChildren();
    return;
  }
  if (listed.count === count && Date.now() - listed.at < LIST_EVERY_MS) return;
  listed = { count, at: Date.now() };
  const key = storedKey();
  const hint = (words) => {
    const p = document.createElement('p');
    p.className = 'muted';
    p.append(words, ' ');
    const link = Object.assign(document.createElement('a'), { href: '/monitors', textContent: 'Monitors' });
    p.append(link);
    box.replaceChildren(p);
  };
  if (!key) return hint('Which ones: save your API key on');
  try {
    const res = await api('GET', '/api/monitors?limit=100', { key });
    const { items } = await res.json();
    const failing = items.filter((m) => m.lastStatus === 'failed' && !m.paused);
    if (!failing.length) return hint('None of them is yours; yours are on');
    const list = document.createElement('ul');
    list.setAttribute('aria-label', 'Your failing monitors');
    for (const m of failing) {
      const li = document.createElement('li');
      li.append(Object.assign(document.createElement('a'), { href: '/monitors', textContent: m.name }));
      if (m.lastRunAt) li.append(`, last run ${utcDateTime(m.lastRunAt)}`);
      list.append(li);
    }
    box.replaceChildren(list);
  } catch {
    hint('Which ones: the key saved in this browser was refused; save a valid one on');
  }
}
