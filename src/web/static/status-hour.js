// The status page's "Last hour": this node's renders by outcome, render time and queue wait, minute by
// minute, each as a small chart with its table (in a <details>) for those who read rather than look.
import { percentileColumns, stackedColumns, table } from '/assets/status-charts.js';
import { duration, utcMinute } from '/assets/status-format.js';

/** Outcome key (as /api/status names it), its words, and its colour class; in stacking order. */
export const OUTCOMES = [
  ['ok', 'OK', 'o-ok'],
  ['failed', 'Failed', 'o-failed'],
  ['blocked', 'Blocked', 'o-blocked'],
  ['timedOut', 'Timed out', 'o-timeout'],
  ['rateLimited', 'Rate-limited', 'o-ratelimited'],
  ['queueFull', 'Queue full', 'o-queuefull'],
  ['canceled', 'Canceled', 'o-canceled'],
];

const $ = (id) => document.getElementById(id);
const active = (m) => OUTCOMES.some(([key]) => m.renders[key] > 0);
const fmt = (p, key) => (p ? duration(p[key]) : '–');

function legend(h) {
  const items = OUTCOMES.map(([key, label, cls]) => {
    const li = document.createElement('li');
    li.dataset.outcome = key;
    const swatch = document.createElement('span');
    swatch.className = `swatch ${cls}`;
    const count = document.createElement('strong');
    count.className = 'count';
    count.textContent = String(h.renders[key]);
    li.append(swatch, `${label} `, count);
    if (!h.renders[key]) li.classList.add('zero');
    return li;
  });
  $('renders-legend').replaceChildren(...items);
}

function plot(id, chart, scaleWords) {
  const scale = document.createElement('span');
  scale.className = 'scale';
  scale.setAttribute('aria-hidden', 'true');
  scale.textContent = scaleWords;
  $(id).replaceChildren(scale, chart.svg);
}

function rendersPart(h) {
  legend(h);
  const chart = stackedColumns(
    h.minutes,
    OUTCOMES.map(([key, , cls]) => [key, cls]),
    (m, key) => m.renders[key],
  );
  plot('renders-plot', chart, `${chart.top} a minute`);
  const rows = h.minutes
    .filter(active)
    .map((m) => [utcMinute(m.start), ...OUTCOMES.map(([key]) => m.renders[key]), sum(m.renders)]);
  rows.push(['Whole hour', ...OUTCOMES.map(([key]) => h.renders[key]), h.renders.total]);
  $('renders-table').replaceChildren(
    table('Renders per minute by outcome', ['Minute', ...OUTCOMES.map(([, label]) => label), 'Total'], rows),
  );
}

const sum = (renders) => OUTCOMES.reduce((n, [key]) => n + renders[key], 0);

function percentilePart(name, h, pick, what) {
  const whole = pick(h);
  for (const key of ['p50', 'p95', 'max']) {
    const cell = document.querySelector(`[data-hour="${name}.${key}"]`);
    if (cell) cell.textContent = fmt(whole, key);
  }
  const chart = percentileColumns(h.minutes, pick);
  plot(`${name}-plot`, chart, whole ? `up to ${duration(chart.top)}` : `no ${what} yet`);
  const rows = h.minutes
    .filter((m) => pick(m))
    .map((m) => {
      const p = pick(m);
      return [utcMinute(m.start), p.count, duration(p.p50), duration(p.p95), duration(p.max)];
    });
  if (whole) rows.push(['Whole hour', whole.count, duration(whole.p50), duration(whole.p95), duration(whole.max)]);
  $(`${name}-table`).replaceChildren(
    table(
      `${what[0].toUpperCase()}${what.slice(1)} per minute (p50, p95 and longest)`,
      ['Minute', 'Count', 'p50', 'p95', 'Longest'],
      rows,
    ),
  );
}

/** Fills the "Last hour" section from /api/status's lastHour. */
export function renderHour(s) {
  const h = s.lastHour;
  if (!h) return; // an older service: the section stays empty
  $('hour-scope').textContent =
    `${utcMinute(h.from)} to ${utcMinute(h.to)}, per minute. Renders of node ${h.node} ` +
    `(the one that answered), kept in its memory since it started.`;
  $('renders-total').textContent = `${h.renders.total} in all`;
  for (const el of document.querySelectorAll('[data-axis="from"]')) el.textContent = utcMinute(h.from);
  for (const el of document.querySelectorAll('[data-axis="to"]')) el.textContent = 'now';
  rendersPart(h);
  percentilePart('renderMs', h, (x) => x.renderMs, 'successful render times');
  percentilePart('queueWaitMs', h, (x) => x.queueWaitMs, 'queue waits');
}
