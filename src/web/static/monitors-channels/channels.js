// The channels view: the key's channels (name, type, where it sends with secrets masked, whether it is a
// default, its pace), each with Send test (its delivery followed until it settles), Edit and Delete, and
// the form to make or change one. A channel is where a monitor's alerts go besides its webhook.
import { useEffect, useRef } from '/assets/vendor/preact-hooks.js';
import { html } from '/assets/monitors-app/html.js';
import { Alert, Words } from '/assets/monitors-app/format.js';
import { useStore } from '/assets/monitors-app/context.js';
import { TYPE_WORDS } from '/assets/monitors-channels/state.js';
import { ChannelForm } from '/assets/monitors-channels/form.js';
import { RecentDeliveries } from '/assets/monitors-channels/recent.js';

/** Where a channel sends, as its view shows it (a URL's secret part is already "••••"). */
export function targetOf(ch) {
  if (ch.type === 'email') return (ch.to ?? []).join(', ');
  return ch.url ?? '';
}

/** The channel's pace in words: at once or a digest, and its quiet hours. */
export function paceOf(ch) {
  const digest =
    ch.digest === 'hourly'
      ? 'Hourly digest'
      : ch.digest === 'daily'
        ? `Daily digest at ${ch.digestAt ?? '09:00'}`
        : 'Each alert at once';
  const quiet = ch.quietHours ? `; quiet ${ch.quietHours.start}–${ch.quietHours.end}` : '';
  return `${digest}${quiet}`;
}

function ChannelItem({ ch }) {
  const store = useStore();
  const test = store.channels.tests.value[ch.id];
  const testing = test?.settled === false;
  const button = (action, visible, onClick, extra = {}) =>
    html`<button
      type="button"
      class="small${action === 'delete' ? ' danger' : ''}"
      data-action=${action}
      data-id=${ch.id}
      onClick=${onClick}
      ...${extra}
    >
      <${Words} visible=${visible} hidden=${ch.name} />
    </button>`;
  return html`<li class="channel card" data-id=${ch.id} data-type=${ch.type}>
    <div class="ch-head">
      <h3 class="ch-name">${ch.name}</h3>
      <span class="badge info ch-type">${TYPE_WORDS[ch.type] ?? ch.type}</span>
      ${ch.default ? html`<span class="badge ok ch-default">default</span>` : null}
    </div>
    <dl class="ch-facts">
      <div>
        <dt>${ch.type === 'email' ? 'To' : 'Sends to'}</dt>
        <dd class="ch-target"><code>${targetOf(ch)}</code></dd>
      </div>
      <div>
        <dt>Pace</dt>
        <dd class="ch-pace">${paceOf(ch)}</dd>
      </div>
      ${
        ch.templates?.subject || ch.templates?.body
          ? html`<div>
              <dt>Message</dt>
              <dd>own template</dd>
            </div>`
          : null
      }
    </dl>
    <p
      class="ch-test alert ${test?.kind ?? ''}"
      hidden=${!test}
      data-test-status=${test ? (test.settled ? 'settled' : 'pending') : undefined}
    >
      ${test?.message ?? ''}
    </p>
    <${RecentDeliveries} ch=${ch} />
    <div class="ch-actions">
      ${button('test', testing ? 'Sending test…' : 'Send test', () => store.channels.sendTest(ch.id), {
        'aria-disabled': testing ? 'true' : undefined,
      })}
      ${button('edit', 'Edit', () => store.channels.openEdit(ch.id))}
      ${button('delete', 'Delete', (event) => store.channels.askDelete(ch.id, event.currentTarget))}
    </div>
  </li>`;
}

function ChannelDeleteDialog() {
  const store = useStore();
  const dialog = useRef(null);
  const target = store.channels.deleting.value;
  const ch = target && store.channels.byId(target.id);
  useEffect(() => {
    if (ch && !dialog.current.open) {
      dialog.current.returnValue = '';
      dialog.current.showModal();
    }
  }, [ch]);
  return html`<dialog
    id="channel-delete-dialog"
    ref=${dialog}
    aria-labelledby="channel-delete-title"
    aria-describedby="channel-delete-text"
    onClose=${() => store.channels.answerDelete(dialog.current.returnValue)}
  >
    <form method="dialog">
      <h2 id="channel-delete-title">${ch ? `Delete the channel “${ch.name}”?` : 'Delete channel?'}</h2>
      <p id="channel-delete-text">
        ${ch ? 'Monitors that list it stop sending to it, and its waiting digest is not sent. This cannot be undone.' : ''}
      </p>
      <div class="form-actions">
        <button type="submit" value="cancel" id="channel-delete-cancel" autofocus>Cancel</button>
        <button type="submit" value="delete" class="danger" id="channel-delete-confirm">Delete</button>
      </div>
    </form>
  </dialog>`;
}

export function ChannelsView() {
  const store = useStore();
  const channels = store.channels;
  const signedIn = store.monitors.value !== null;
  useEffect(() => {
    if (signedIn) channels.load();
    else channels.clear();
  }, [store.key.value, signedIn]);
  if (!signedIn) return null;
  const list = channels.list.value;
  const open = channels.form.value;
  return html`<section id="channels-section" aria-labelledby="channels-title">
    <div class="section-head">
      <h2 id="channels-title">
        Channels <span id="channels-count" class="muted">${list?.length ? `(${list.length})` : ''}</span>
      </h2>
      <div class="section-actions">
        <button type="button" id="channels-refresh" onClick=${() => channels.load()}>Refresh</button>
        <button
          type="button"
          class="primary"
          id="new-channel"
          hidden=${channels.missing.value}
          onClick=${() => channels.openCreate()}
        >
          New channel
        </button>
      </div>
    </div>
    <p class="hint channels-lead">
      Where alerts go besides a monitor's webhook: email, Slack, Discord, Microsoft Teams, ntfy or a JSON webhook of
      your own. A default channel gets the alerts of every monitor that picks no channels of its own.
    </p>
    <div id="channels-status" class="sr-only" role="status" aria-live="polite">
      ${channels.status.value?.message ?? ''}
    </div>
    <div id="channels-error" role="alert"><${Alert} alert=${channels.error.value} /></div>
    ${
      channels.missing.value
        ? html`<div class="card empty" id="channels-missing">
            <p><strong>This service has no channels yet.</strong></p>
            <p class="muted">Its version predates channels; alerts go to each monitor's webhook only.</p>
          </div>`
        : null
    }
    <div id="channels-empty" class="card empty" hidden=${list === null || list.length > 0}>
      <p><strong>No channels yet.</strong></p>
      <p class="muted">
        Make one with <em>New channel</em>: an email address is enough. Then tick it in a monitor's form, or make it a
        default.
      </p>
    </div>
    <ul id="channel-rows" class="channels" aria-labelledby="channels-title" hidden=${!list?.length}>
      ${(list ?? []).map((ch) => html`<${ChannelItem} key=${ch.id} ch=${ch} />`)}
    </ul>
    ${open ? html`<${ChannelForm} key=${open.serial} open=${open} />` : null}
    <${ChannelDeleteDialog} />
  </section>`;
}
