// A channel's recent deliveries, loaded when its disclosure is opened (GET /api/webhook-deliveries
// ?channelId=): which alerts it sent, which wait for a digest or quiet hours and until when, and why a
// failed one failed. The full log with Redeliver is the monitor's history.
import { useSignal } from '/assets/vendor/signals.js';
import { ApiError } from '/assets/api.js';
import { html } from '/assets/monitors-app/html.js';
import { Time } from '/assets/monitors-app/format.js';
import { useStore } from '/assets/monitors-app/context.js';

const RECENT = 5;
const HELD = { digest: 'waits for the digest', quiet_hours: 'waits for quiet hours to end' };

function Item({ d }) {
  const held = d.status === 'pending' && d.heldFor;
  return html`<li data-delivery=${d.id} data-status=${d.status}>
    <code>${d.eventType}</code>${' '}
    <span class="badge ${d.status === 'succeeded' ? 'ok' : d.status === 'failed' ? 'error' : 'info'}">${d.status}</span
    >${' '}
    ${
      held
        ? html`<span>${HELD[d.heldFor] ?? d.heldFor}: sent <${Time} iso=${d.nextAttemptAt} /></span>`
        : html`<span class="hint">queued <${Time} iso=${d.createdAt} /></span>`
    }
    ${d.status !== 'succeeded' && d.lastError ? html`<div class="dl-error">${d.lastError}</div>` : null}
  </li>`;
}

export function RecentDeliveries({ ch }) {
  const store = useStore();
  const items = useSignal(null);
  const error = useSignal('');

  async function load(event) {
    if (!event.currentTarget.open) return;
    try {
      const page = await store.json(
        'GET',
        `/api/webhook-deliveries?channelId=${encodeURIComponent(ch.id)}&limit=${RECENT}`,
      );
      items.value = page.items;
      error.value = '';
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return store.handleError(err);
      error.value = `The deliveries could not be loaded. ${err instanceof ApiError ? err.explanation : String(err?.message ?? err)}`;
    }
  }

  const list = items.value;
  return html`<details class="ch-recent" onToggle=${load}>
    <summary>Recent deliveries<span class="sr-only">${` of ${ch.name}`}</span></summary>
    <p class="field-error" hidden=${!error.value}>${error.value}</p>
    ${list === null ? null : list.length === 0 ? html`<p class="hint">None yet.</p>` : null}
    <ul class="ch-deliveries" hidden=${!list?.length}>
      ${(list ?? []).map((d) => html`<${Item} key=${d.id} d=${d} />`)}
    </ul>
  </details>`;
}
