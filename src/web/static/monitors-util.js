// Shared by the dashboard's modules (monitors.js wires them): the page's state, building elements,
// times and badges in words, alerts, and the API calls made with the saved key.
import { api, storedKey } from '/assets/api.js';

export const $ = (id) => document.getElementById(id);

export const state = {
  key: storedKey(),
  /** id → monitor, in list order */
  monitors: new Map(),
  loaded: false,
  /** null: create; else the id of the monitor being edited */
  editing: null,
  /** monitor ids whose Run now is being followed */
  running: new Set(),
  /** { monitorId, captures, nextCursor, selectedId, view, lastRunAt } */
  history: null,
  listLoading: null,
};

/** Builds an element: h('a', {href, class: 'x'}, 'text', child…). Text always goes in as text. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') el.className = value;
    else if (name === 'dataset') Object.assign(el.dataset, value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** A button's visible words plus words for screen readers only ("Edit" + " Pricing page"). */
export function setButtonText(button, visible, hidden) {
  button.replaceChildren(
    document.createTextNode(visible),
    ...(hidden ? [h('span', { class: 'sr-only' }, ` ${hidden}`)] : []),
  );
}

const rtf = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const UNITS = [
  ['year', 31_536_000],
  ['month', 2_592_000],
  ['week', 604_800],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
  ['second', 1],
];

export function relativeTime(iso) {
  const seconds = (Date.parse(iso) - Date.now()) / 1000;
  if (Math.abs(seconds) < 45) return seconds < 0 ? 'just now' : 'in a few seconds';
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size || unit === 'second') return rtf.format(Math.round(seconds / size), unit);
  }
  return iso;
}

const absoluteFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'long' });
export const absoluteTime = (iso) => absoluteFormat.format(new Date(iso));

/** <time> with the relative time shown and the absolute one in its title; "—" (and a reason) when absent. */
export function timeEl(iso, absent = '—') {
  if (!iso) return h('span', { class: 'muted' }, absent);
  return h('time', { datetime: iso, title: absoluteTime(iso) }, relativeTime(iso));
}

export const percent = (ratio) => {
  const p = ratio * 100;
  if (p === 0) return '0 %';
  if (p < 0.01) return '< 0.01 %';
  return `${p < 1 ? p.toFixed(2) : p < 10 ? p.toFixed(1) : p.toFixed(0)} %`;
};

const STATUS_BADGE = {
  paused: ['paused', 'paused'],
  baseline: ['baseline', 'info'],
  unchanged: ['unchanged', 'ok'],
  changed: ['changed', 'warn'],
  failed: ['failed', 'error'],
  none: ['not run yet', 'none'],
};

export function statusOf(m) {
  if (m.paused) return 'paused';
  return m.lastStatus ?? 'none';
}

export function badge(kind, text) {
  const [words, style] = STATUS_BADGE[kind] ?? [kind, 'none'];
  return h('span', { class: `badge ${style}`, dataset: { status: kind } }, text ?? words);
}

export function setAlert(el, kind, message, extra) {
  el.replaceChildren();
  if (!message) return;
  el.append(h('div', { class: `alert ${kind}` }, message, extra));
}

let noticeTimer;
/** A passing message, announced politely. */
export function notice(message, kind = 'ok') {
  clearTimeout(noticeTimer);
  setAlert($('notice'), kind, message);
  noticeTimer = setTimeout(() => $('notice').replaceChildren(), 12_000);
}

export function pageError(message) {
  setAlert($('page-error'), 'error', message);
}

export const call = (method, path, body) => api(method, path, { key: state.key, body });
export const json = async (method, path, body) => (await call(method, path, body)).json();

/** A capture's result in words: the notice after Run now and the viewer's facts both say it. */
export function captureResult(c) {
  if (c.status === 'failed') return 'failed';
  if (!c.baselineId) return 'baseline (first capture to compare with)';
  return c.changed ? `changed, ${percent(c.diffRatio)} of the pixels` : 'unchanged';
}

/** notifyWhen tests: [test, words, the kind of value it takes (null: none, the test is just `true`)]. */
export const RULE_TESTS = [
  ['textContains', 'text contains', 'text'],
  ['textNotContains', 'text does not contain', 'text'],
  ['numberBelow', 'number is below', 'number'],
  ['numberAbove', 'number is above', 'number'],
  ['numberChanged', 'number changed', null],
  ['appears', 'element appears', null],
  ['disappears', 'element disappears', null],
];
