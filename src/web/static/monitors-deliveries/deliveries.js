// A monitor's webhook deliveries in its history: the recent ones (event, status, attempts, last answer,
// next retry) from GET /api/webhook-deliveries?monitorId=, a Redeliver button on each, and "Send test
// event" (POST /api/monitors/{id}/test-webhook). While a delivery is pending the list follows it, so a
// person sees the test event go from pending to succeeded (or why it failed) without reloading. A channel's
// delivery (channelId, channelType) says which channel it went to, and one held for a digest or quiet
// hours says until when.
import { useEffect, useRef } from '/assets/vendor/preact-hooks.js';
import { useSignal } from '/assets/vendor/signals.js';
import { ApiError } from '/assets/api.js';
import { html } from '/assets/monitors-app/html.js';
import { absoluteTime, Alert, relativeTime, Time, Words } from '/assets/monitors-app/format.js';
import { useStore } from '/assets/monitors-app/context.js';
import { TYPE_WORDS } from '/assets/monitors-channels/state.js';

const PAGE = 10;
/** Pending deliveries are looked at again when due, but at least this often and at most this often. */
const POLL_MIN_MS = 1_000;
const POLL_MAX_MS = 30_000;

const STATUS = {
  pending: ['pending', 'info'],
  succeeded: ['succeeded', 'ok'],
  failed: ['failed', 'error'],
};

/** A reload of the first page keeps the older pages already loaded with Load more (updated where shown). */
function mergeFirstPage(old, first) {
  const ids = new Set(first.map((d) => d.id));
  const oldest = first.at(-1)?.createdAt;
  const older = oldest ? old.filter((d) => !ids.has(d.id) && d.createdAt <= oldest) : [];
  return [...first, ...older];
}

function LastResponse({ d }) {
  if (!d.lastAttemptAt) return html`<span class="muted">not sent yet</span>`;
  return html`<span
    >${`${d.lastResponseStatus ? `HTTP ${d.lastResponseStatus}` : 'no answer'}, `}<${Time} iso=${d.lastAttemptAt}
  /></span>`;
}

const HELD_FOR = { digest: 'held for the digest', quiet_hours: 'held for quiet hours' };

function NextRetry({ d }) {
  if (d.status === 'pending' && d.heldFor && d.nextAttemptAt)
    return html`<span data-held=${d.heldFor}
      >${`${HELD_FOR[d.heldFor] ?? `held (${d.heldFor})`}, sent `}<time
        datetime=${d.nextAttemptAt}
        title=${absoluteTime(d.nextAttemptAt)}
        >${relativeTime(d.nextAttemptAt)}</time
      ></span
    >`;
  if (d.status !== 'pending')
    return html`<span class="muted">${d.status === 'succeeded' ? 'none' : 'none (given up)'}</span>`;
  if (!d.nextAttemptAt || Date.parse(d.nextAttemptAt) <= Date.now()) return 'now';
  return html`<time datetime=${d.nextAttemptAt} title=${absoluteTime(d.nextAttemptAt)}
    >${relativeTime(d.nextAttemptAt)}</time
  >`;
}

/** A channel delivery's channel in words: its name (when the key still has it) and its type. */
function ChannelOf({ d }) {
  const store = useStore();
  if (!d.channelId) return null;
  const name = store.channels.byId(d.channelId)?.name;
  const type = TYPE_WORDS[d.channelType] ?? d.channelType ?? 'channel';
  return html`<span class="dl-channel" data-channel=${d.channelId} data-channel-type=${d.channelType}
    >${`to ${name ? `“${name}” ` : ''}(${type})`}</span
  >`;
}

function Delivery({ d, onRedeliver }) {
  const [words, style] = STATUS[d.status] ?? [d.status, 'none'];
  return html`<li class="delivery" data-delivery=${d.id} data-status=${d.status}>
    <div class="dl-body">
      <div class="dl-head">
        <code class="dl-event">${d.eventType}</code>
        <${ChannelOf} d=${d} />
        <span class="badge ${style}" data-status=${d.status}>${words}</span>
        <span class="hint">queued <${Time} iso=${d.createdAt} /></span>
      </div>
      <dl class="dl-facts">
        <div>
          <dt>Attempts</dt>
          <dd>${String(d.attempts)}</dd>
        </div>
        <div>
          <dt>Last response</dt>
          <dd><${LastResponse} d=${d} /></dd>
        </div>
        <div>
          <dt>${d.heldFor && d.status === 'pending' ? 'Sending' : 'Next retry'}</dt>
          <dd><${NextRetry} d=${d} /></dd>
        </div>
      </dl>
      <p class="dl-error">${d.status === 'succeeded' ? null : d.lastError}</p>
    </div>
    <div class="dl-actions">
      <button type="button" class="small" data-redeliver=${d.id} onClick=${onRedeliver}>
        <${Words}
          visible="Redeliver"
          hidden=${`the ${d.eventType} event of ${absoluteTime(d.createdAt)}${d.channelId ? ` ${d.channelType ?? ''} channel` : ''}`}
        />
      </button>
    </div>
  </li>`;
}

/** The channels a monitor's alerts go to: its own list, else the key's defaults; null before they load. */
function channelsOf(monitor, list) {
  if (!list) return null;
  return monitor.channels != null
    ? list.filter((ch) => monitor.channels.includes(ch.id))
    : list.filter((ch) => ch.default);
}

export function Deliveries({ monitor }) {
  const store = useStore();
  const channels = channelsOf(monitor, store.channels.list.value);
  const items = useSignal([]);
  const nextCursor = useSignal(null);
  const status = useSignal(null);
  const error = useSignal(null);
  /** The delivery sent (or sent again) from here, and its attempts then, followed until it is settled. */
  const followed = useRef(null);
  const timer = useRef(undefined);
  const alive = useRef(true);
  const url = monitor.webhookUrl;

  /** Says in words what became of the followed delivery. */
  function announceFollowed() {
    const d = followed.current && items.value.find((item) => item.id === followed.current.id);
    if (!d || (d.status === 'pending' && d.attempts === followed.current.from)) return; // still "sending it…"
    const what = d.eventType === 'monitor.test' ? 'Test event' : `The ${d.eventType} event`;
    const answer = d.lastResponseStatus ? `the receiver answered HTTP ${d.lastResponseStatus}` : d.lastError;
    if (d.status === 'pending') {
      const when = d.nextAttemptAt ? ` It is tried again ${relativeTime(d.nextAttemptAt)}.` : '';
      status.value = { kind: 'warn', message: `${what} not delivered yet: ${answer}.${when}` };
      return;
    }
    followed.current = null;
    status.value =
      d.status === 'succeeded'
        ? { kind: 'ok', message: `${what} delivered: ${answer}.` }
        : { kind: 'error', message: `${what} not delivered: ${answer}.` };
  }

  /** While a shown delivery is pending, look again when the earliest is due (within the bounds above). */
  function schedulePoll() {
    clearTimeout(timer.current);
    const due = items.value
      .filter((d) => d.status === 'pending')
      .map((d) => (d.nextAttemptAt ? Date.parse(d.nextAttemptAt) : Date.now()));
    if (!due.length) return;
    const wait = Math.min(POLL_MAX_MS, Math.max(POLL_MIN_MS, Math.min(...due) - Date.now() + 500));
    timer.current = setTimeout(() => alive.current && load(), wait);
  }

  function shown(next) {
    items.value = next;
    announceFollowed();
    schedulePoll();
  }

  /** The first page again (or, with `more`, the next one); then follow the pending ones. */
  async function load({ more = false } = {}) {
    try {
      const cursor = more ? nextCursor.value : null;
      const page = await store.json(
        'GET',
        `/api/webhook-deliveries?monitorId=${encodeURIComponent(monitor.id)}&limit=${PAGE}` +
          (cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''),
      );
      if (!alive.current) return;
      const next = more ? [...items.value, ...page.items] : mergeFirstPage(items.value, page.items);
      nextCursor.value = more || next.length <= PAGE ? page.nextCursor : nextCursor.value;
      error.value = null;
      shown(next);
    } catch (err) {
      if (!alive.current) return;
      if (err instanceof ApiError && err.status === 401) return store.handleError(err);
      error.value = { kind: 'error', message: `The deliveries could not be loaded. ${err.explanation ?? err.message}` };
    }
  }

  // Loaded on open and each time the list is (every 10 s): deliveries may have moved on.
  useEffect(() => {
    load();
  }, [store.listVersion.value]);
  useEffect(
    () => () => {
      alive.current = false;
      clearTimeout(timer.current);
    },
    [],
  );

  // aria-disabled, not disabled: a disabled button would lose the keyboard focus.
  async function once(button, work) {
    if (button.getAttribute('aria-disabled') === 'true') return;
    button.setAttribute('aria-disabled', 'true');
    try {
      await work();
    } finally {
      button.removeAttribute('aria-disabled');
    }
  }

  const sendTest = (event) =>
    once(event.currentTarget, async () => {
      try {
        const delivery = await store.json('POST', `/api/monitors/${encodeURIComponent(monitor.id)}/test-webhook`);
        if (!alive.current) return;
        followed.current = { id: delivery.id, from: delivery.attempts };
        status.value = { kind: 'info', message: 'Test event queued; sending it…' };
        shown([delivery, ...items.value.filter((d) => d.id !== delivery.id)]);
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return store.handleError(err);
        status.value = { kind: 'error', message: `The test event was not sent. ${err.explanation ?? err.message}` };
      }
    });

  const redeliver = (d) => (event) =>
    once(event.currentTarget, async () => {
      try {
        const updated = await store.json('POST', `/api/webhook-deliveries/${encodeURIComponent(d.id)}/redeliver`);
        if (!alive.current) return;
        followed.current = { id: updated.id, from: updated.attempts };
        status.value = { kind: 'info', message: `Sending the ${updated.eventType} event again…` };
        shown(items.value.map((x) => (x.id === updated.id ? updated : x)));
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return store.handleError(err);
        status.value = {
          kind: 'error',
          message: `The delivery could not be sent again. ${err.explanation ?? err.message}`,
        };
      }
    });

  return html`<section class="card deliveries-card" id="deliveries" aria-labelledby="deliveries-title">
    <div class="deliveries-head">
      <h3 id="deliveries-title">Webhook deliveries</h3>
      <div class="section-actions">
        <button type="button" id="deliveries-test" hidden=${!url} onClick=${sendTest}>Send test event</button>
        <button type="button" id="deliveries-refresh" onClick=${() => load()}>Refresh</button>
      </div>
    </div>
    <p class="hint deliveries-target" id="deliveries-target">
      ${
        url
          ? html`Events go to <code class="url">${url}</code>, signed with your API key's webhook secret.${' '}<a
                href="/docs#verifying"
                >How to verify a delivery</a
              >`
          : channels?.length
            ? html`This monitor has no webhook URL: its alerts go to its channels only.`
            : html`This monitor has no webhook URL, so nothing is sent. Add one with <em>Edit</em>.`
      }
    </p>
    ${
      channels?.length
        ? html`<p class="hint deliveries-target" id="deliveries-channels">
            ${`${url ? 'Alerts also go to ' : ''}${monitor.channels != null ? 'its channels' : "the key's default channels"}: `.replace(/^./, (c) => c.toUpperCase())}
            ${channels.map((ch, i) => html`${i ? ', ' : ''}<strong>${ch.name}</strong> (${TYPE_WORDS[ch.type] ?? ch.type})`)}.${' '}
            <a href="#/channels">Manage channels</a>
          </p>`
        : null
    }
    <div id="deliveries-status" class="deliveries-status" role="status"><${Alert} alert=${status.value} /></div>
    <div id="deliveries-error" role="alert"><${Alert} alert=${error.value} /></div>
    <p id="deliveries-empty" class="muted" hidden=${items.value.length > 0}>No deliveries yet.</p>
    <ol id="deliveries-list" class="deliveries" aria-labelledby="deliveries-title">
      ${items.value.map((d) => html`<${Delivery} key=${d.id} d=${d} onRedeliver=${redeliver(d)} />`)}
    </ol>
    <button type="button" id="deliveries-more" hidden=${!nextCursor.value} onClick=${() => load({ more: true })}>
      Load more
    </button>
  </section>`;
}
