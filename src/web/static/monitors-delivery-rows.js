// The rows of a monitor's delivery log (monitors-deliveries.js loads them): one item per delivery with its
// event, status, attempts, last answer and next retry in words, and its Redeliver button. Rows are updated
// in place by delivery id, so a button that has the focus keeps it while the list follows a delivery.
import { $, absoluteTime, h, relativeTime, setButtonText, timeEl } from '/assets/monitors-util.js';

const STATUS = {
  pending: ['pending', 'info'],
  succeeded: ['succeeded', 'ok'],
  failed: ['failed', 'error'],
};

export function renderDeliveries(items) {
  const list = $('deliveries-list');
  const existing = new Map([...list.children].map((li) => [li.dataset.delivery, li]));
  items.forEach((d, i) => {
    let li = existing.get(d.id);
    if (!li) li = createRow(d);
    existing.delete(d.id);
    updateRow(li, d);
    if (list.children[i] !== li) list.insertBefore(li, list.children[i] ?? null);
  });
  for (const li of existing.values()) li.remove();
}

function createRow(d) {
  const button = h('button', { type: 'button', class: 'small', dataset: { redeliver: d.id } });
  return h(
    'li',
    { class: 'delivery', dataset: { delivery: d.id } },
    h('div', { class: 'dl-body' }),
    h('div', { class: 'dl-actions' }, button),
  );
}

function updateRow(li, d) {
  const [words, style] = STATUS[d.status] ?? [d.status, 'none'];
  li.dataset.status = d.status;
  li.querySelector('.dl-body').replaceChildren(
    h(
      'div',
      { class: 'dl-head' },
      h('code', { class: 'dl-event' }, d.eventType),
      h('span', { class: `badge ${style}`, dataset: { status: d.status } }, words),
      h('span', { class: 'hint' }, 'queued ', timeEl(d.createdAt)),
    ),
    h(
      'dl',
      { class: 'dl-facts' },
      fact('Attempts', String(d.attempts)),
      fact('Last response', lastResponse(d)),
      fact('Next retry', nextRetry(d)),
    ),
    // replaceChildren would write a null as the text "null": an empty paragraph is hidden by CSS instead.
    h('p', { class: 'dl-error' }, d.status === 'succeeded' ? null : d.lastError),
  );
  setButtonText(
    li.querySelector('button[data-redeliver]'),
    'Redeliver',
    `the ${d.eventType} event of ${absoluteTime(d.createdAt)}`,
  );
}

const fact = (term, value) => h('div', {}, h('dt', {}, term), h('dd', {}, value));

function lastResponse(d) {
  if (!d.lastAttemptAt) return h('span', { class: 'muted' }, 'not sent yet');
  const answer = d.lastResponseStatus ? `HTTP ${d.lastResponseStatus}` : 'no answer';
  return h('span', {}, `${answer}, `, timeEl(d.lastAttemptAt));
}

function nextRetry(d) {
  if (d.status !== 'pending')
    return h('span', { class: 'muted' }, d.status === 'succeeded' ? 'none' : 'none (given up)');
  if (!d.nextAttemptAt || Date.parse(d.nextAttemptAt) <= Date.now()) return 'now';
  return h('time', { datetime: d.nextAttemptAt, title: absoluteTime(d.nextAttemptAt) }, relativeTime(d.nextAttemptAt));
}
