// Words and small pieces every part of the dashboard shows: times, percentages, badges, alerts.
import { html } from '/assets/monitors-app/html.js';

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

/** <time> with the relative time shown and the absolute one in its title; "—" (or a reason) when absent. */
export function Time({ iso, absent = '—' }) {
  if (!iso) return html`<span class="muted">${absent}</span>`;
  return html`<time datetime=${iso} title=${absoluteTime(iso)}>${relativeTime(iso)}</time>`;
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
  suspect: ['suspect', 'below'],
  filter_missing: ['filter missing', 'below'],
  none: ['not run yet', 'none'],
};

export const statusOf = (m) => (m.paused ? 'paused' : (m.lastStatus ?? 'none'));

export function StatusBadge({ kind }) {
  const [words, style] = STATUS_BADGE[kind] ?? [kind, 'none'];
  return html`<span class="badge ${style}" data-status=${kind}>${words}</span>`;
}

/** An alert box inside a live region; nothing when there is no message. */
export function Alert({ alert }) {
  if (!alert?.message) return null;
  return html`<div class="alert ${alert.kind}">
    ${alert.message}${alert.hidden ? html`<span class="sr-only">${alert.hidden}</span>` : null}${alert.extra ?? null}
  </div>`;
}

/** A button's visible words plus words for screen readers only ("Edit" + " Pricing page"). */
export const Words = ({ visible, hidden }) =>
  html`${visible}${hidden ? html`<span class="sr-only">${` ${hidden}`}</span>` : null}`;

/** A capture's result in words: the notice after Run now and the viewer's facts both say it. */
export function captureResult(c) {
  if (c.status === 'failed') return 'failed';
  if (c.status === 'suspect') return 'suspect: not compared, not a change';
  if (c.status === 'filter_missing') return 'the filter stopped matching: not compared';
  if (!c.baselineId) return 'baseline (first capture to compare with)';
  return c.changed ? `changed, ${percent(c.diffRatio)} of the pixels` : 'unchanged';
}

/**
 * notifyWhen tests: [test, words, the kind of value it takes]. Kinds: 'text', 'regex' (a pattern, with
 * Match case), 'number'; null: none (the test is just `true`). The price tests read the capture's price
 * and availability, not an element: 'price' (a number), 'range' (priceOutside: [min, max]), 'by' (a
 * drop or rise: {percent} or {amount}), 'stock' (no value).
 */
export const RULE_TESTS = [
  ['textContains', 'text contains', 'text'],
  ['textNotContains', 'text does not contain', 'text'],
  ['textMatches', 'text matches (regex)', 'regex'],
  ['textNotMatches', 'text does not match (regex)', 'regex'],
  ['numberBelow', 'number is below', 'number'],
  ['numberAbove', 'number is above', 'number'],
  ['numberChanged', 'number changed', null],
  ['appears', 'element appears', null],
  ['disappears', 'element disappears', null],
  ['priceBelow', 'price is below', 'price'],
  ['priceAbove', 'price is above', 'price'],
  ['priceOutside', 'price is outside', 'range'],
  ['priceDropsBy', 'price drops by', 'by'],
  ['priceRisesBy', 'price rises by', 'by'],
  ['backInStock', 'back in stock', 'stock'],
  ['outOfStock', 'out of stock', 'stock'],
];

/** The tests that read the capture's price / availability: they take no element. */
export const PRICE_KINDS = new Set(['price', 'range', 'by', 'stock']);
