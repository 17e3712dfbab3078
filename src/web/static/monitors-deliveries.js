// A monitor's webhook deliveries in its history: the recent ones (event, status, attempts, last answer,
// next retry) from GET /api/webhook-deliveries?monitorId=, a Redeliver button on each, and "Send test
// event" (POST /api/monitors/{id}/test-webhook). While a delivery is pending the list follows it, so a
// person sees the test event go from pending to succeeded (or why it failed) without reloading.
import { ApiError } from '/assets/api.js';
import { handleError } from '/assets/monitors-key.js';
import { renderDeliveries } from '/assets/monitors-delivery-rows.js';
import { $, h, json, relativeTime, setAlert, state } from '/assets/monitors-util.js';

const PAGE = 10;
/** Pending deliveries are looked at again when due, but at least this often and at most this often. */
const POLL_MIN_MS = 1_000;
const POLL_MAX_MS = 30_000;

/** { monitorId, items, nextCursor, followId and followFrom (the delivery followed, its attempts then), timer } */
let view = null;

/** The history opened (or changed monitor): show its deliveries. */
export function openDeliveries(monitorId) {
  if (view?.monitorId !== monitorId) {
    closeDeliveries();
    view = { monitorId, items: [], nextCursor: null, followId: null, followFrom: 0, timer: undefined };
    $('deliveries-list').replaceChildren();
    $('deliveries-status').replaceChildren();
    setAlert($('deliveries-error'), 'error', '');
  }
  renderTarget();
  return load();
}

export function closeDeliveries() {
  if (view) clearTimeout(view.timer);
  view = null;
}

/** The list refreshed (every 10 s): the monitor may have a new webhook URL, and deliveries may have moved on. */
export function followDeliveries() {
  if (!view) return;
  renderTarget();
  return load();
}

/** Where events go and how they are signed; or, without a webhook URL, how to get one. */
function renderTarget() {
  const m = state.monitors.get(view.monitorId);
  const url = m?.webhookUrl;
  $('deliveries-test').hidden = !url;
  $('deliveries-target').replaceChildren(
    ...(url
      ? [
          'Events go to ',
          h('code', { class: 'url' }, url),
          ", signed with your API key's webhook secret. ",
          h('a', { href: '/docs#verifying' }, 'How to verify a delivery'),
        ]
      : ['This monitor has no webhook URL, so nothing is sent. Add one with ', h('em', {}, 'Edit'), '.']),
  );
}

/** The first page again (or, with `more`, the next one); then follow the pending ones. */
async function load({ more = false } = {}) {
  const current = view;
  if (!current) return;
  try {
    const cursor = more ? current.nextCursor : null;
    const page = await json(
      'GET',
      `/api/webhook-deliveries?monitorId=${encodeURIComponent(current.monitorId)}&limit=${PAGE}` +
        (cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''),
    );
    if (view !== current) return;
    current.items = more ? [...current.items, ...page.items] : mergeFirstPage(current.items, page.items);
    current.nextCursor = more || current.items.length <= PAGE ? page.nextCursor : current.nextCursor;
    setAlert($('deliveries-error'), 'error', '');
    show();
  } catch (err) {
    if (view !== current) return;
    if (err instanceof ApiError && err.status === 401) return handleError(err);
    setAlert($('deliveries-error'), 'error', `The deliveries could not be loaded. ${err.explanation ?? err.message}`);
  }
}

/** A reload of the first page keeps the older pages already loaded with Load more (updated where shown). */
function mergeFirstPage(old, first) {
  const ids = new Set(first.map((d) => d.id));
  const oldest = first.at(-1)?.createdAt;
  const older = oldest ? old.filter((d) => !ids.has(d.id) && d.createdAt <= oldest) : [];
  return [...first, ...older];
}

function show() {
  renderDeliveries(view.items);
  $('deliveries-empty').hidden = view.items.length > 0;
  $('deliveries-more').hidden = !view.nextCursor;
  announceFollowed();
  schedulePoll();
}

/** Says in words what became of the delivery sent (or sent again) from here, until it is settled. */
function announceFollowed() {
  const d = view.followId && view.items.find((item) => item.id === view.followId);
  if (!d || (d.status === 'pending' && d.attempts === view.followFrom)) return; // still "sending it…"
  const what = d.eventType === 'monitor.test' ? 'Test event' : `The ${d.eventType} event`;
  const answer = d.lastResponseStatus ? `the receiver answered HTTP ${d.lastResponseStatus}` : d.lastError;
  if (d.status === 'pending') {
    const when = d.nextAttemptAt ? ` It is tried again ${relativeTime(d.nextAttemptAt)}.` : '';
    return setAlert($('deliveries-status'), 'warn', `${what} not delivered yet: ${answer}.${when}`);
  }
  view.followId = null;
  setAlert(
    $('deliveries-status'),
    d.status === 'succeeded' ? 'ok' : 'error',
    d.status === 'succeeded' ? `${what} delivered: ${answer}.` : `${what} not delivered: ${answer}.`,
  );
}

/** Follow this delivery (just queued or sent again) until its next attempt is recorded. */
function follow(d) {
  view.followId = d.id;
  view.followFrom = d.attempts;
}

/** While a shown delivery is pending, look again when the earliest is due (within the bounds above). */
function schedulePoll() {
  clearTimeout(view.timer);
  const due = view.items
    .filter((d) => d.status === 'pending')
    .map((d) => (d.nextAttemptAt ? Date.parse(d.nextAttemptAt) : Date.now()));
  if (!due.length) return;
  const wait = Math.min(POLL_MAX_MS, Math.max(POLL_MIN_MS, Math.min(...due) - Date.now() + 500));
  const current = view;
  view.timer = setTimeout(() => view === current && load(), wait);
}

$('deliveries-test').addEventListener('click', async () => {
  const current = view;
  if (!current) return;
  const button = $('deliveries-test');
  if (button.getAttribute('aria-disabled') === 'true') return; // one test event at a time from this button
  button.setAttribute('aria-disabled', 'true');
  try {
    const delivery = await json('POST', `/api/monitors/${encodeURIComponent(current.monitorId)}/test-webhook`);
    if (view !== current) return;
    follow(delivery);
    setAlert($('deliveries-status'), 'info', 'Test event queued; sending it…');
    current.items = [delivery, ...current.items.filter((d) => d.id !== delivery.id)];
    show();
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return handleError(err);
    setAlert($('deliveries-status'), 'error', `The test event was not sent. ${err.explanation ?? err.message}`);
  } finally {
    button.removeAttribute('aria-disabled');
  }
});

$('deliveries-list').addEventListener('click', async (event) => {
  const button = event.target.closest('button[data-redeliver]');
  const current = view;
  if (!button || !current || button.getAttribute('aria-disabled') === 'true') return;
  // aria-disabled, not disabled: a disabled button would lose the keyboard focus.
  button.setAttribute('aria-disabled', 'true');
  try {
    const id = button.dataset.redeliver;
    const updated = await json('POST', `/api/webhook-deliveries/${encodeURIComponent(id)}/redeliver`);
    if (view !== current) return;
    follow(updated);
    current.items = current.items.map((d) => (d.id === updated.id ? updated : d));
    setAlert($('deliveries-status'), 'info', `Sending the ${updated.eventType} event again…`);
    show();
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return handleError(err);
    setAlert(
      $('deliveries-status'),
      'error',
      `The delivery could not be sent again. ${err.explanation ?? err.message}`,
    );
  } finally {
    button.removeAttribute('aria-disabled'); // rows are updated in place: still the row's button, focus and all
  }
});

$('deliveries-refresh').addEventListener('click', () => load());
$('deliveries-more').addEventListener('click', () => load({ more: true }));
