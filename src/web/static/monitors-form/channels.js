// The monitor form's channel picker: where the monitor's alerts go besides its webhook. Three choices,
// as the API has them: the key's default channels (the field absent; null on edit to go back to them),
// only the channels ticked (their ids), or none ([]). Hidden when the service has no channels API.
import { useEffect } from '/assets/vendor/preact-hooks.js';
import { html } from '/assets/monitors-app/html.js';
import { useStore } from '/assets/monitors-app/context.js';
import { FieldError } from '/assets/monitors-form/model.js';
import { TYPE_WORDS } from '/assets/monitors-channels/state.js';

/** Where the API's problems with `channels` show: [control, error line]. */
export const CHANNEL_FIELDS = { channels: ['f-channels-chosen', 'f-channels-error'] };

export function channelValues(m) {
  const channels = m?.channels;
  return {
    'f-channels-mode': channels == null ? 'default' : channels.length ? 'chosen' : 'none',
    'f-channels': channels ?? [],
  };
}

/**
 * The `channels` member of the body (undefined: left out), and the problems the browser can tell.
 * `list`: the key's channels; null when the service has none to offer (the field is then never sent).
 */
export function readChannels(model, original, list) {
  if (!list) return { value: undefined, problems: [] };
  const mode = model.get('f-channels-mode');
  if (mode === 'none') return { value: [], problems: [] };
  if (mode === 'chosen') {
    // A channel deleted since the monitor listed it is no longer the key's: sending it back would be refused.
    const ids = model.get('f-channels').filter((id) => list.some((ch) => ch.id === id));
    return ids.length
      ? { value: ids, problems: [] }
      : { value: undefined, problems: [{ path: 'channels', message: 'Tick at least one channel, or choose None.' }] };
  }
  // Back to the key's defaults: null removes a list the monitor had (Merge Patch); nothing to say otherwise.
  return { value: original?.channels != null ? null : undefined, problems: [] };
}

export function ChannelPicker({ model }) {
  const store = useStore();
  const channels = store.channels;
  useEffect(() => {
    if (channels.list.value === null) channels.load();
  }, []);
  const list = channels.list.value;
  if (channels.missing.value || list === null) return null;
  const mode = model.get('f-channels-mode');
  const chosen = model.get('f-channels');
  const defaults = list.filter((ch) => ch.default).map((ch) => ch.name);
  const invalid = model.invalid.value.has('f-channels-chosen');
  const radio = (value, words, extra = null) =>
    html`<label class="check"
      ><input
        type="radio"
        name="channels-mode"
        id=${`f-channels-${value}`}
        value=${value}
        checked=${mode === value}
        aria-invalid=${value === 'chosen' && invalid ? 'true' : undefined}
        aria-describedby=${value === 'chosen' && invalid ? 'f-channels-error' : undefined}
        onChange=${() => model.set('f-channels-mode', value)}
      />
      ${words}${extra}</label
    >`;
  const toggle = (id) => (event) =>
    model.set(
      'f-channels',
      event.currentTarget.checked ? [...chosen.filter((x) => x !== id), id] : chosen.filter((x) => x !== id),
    );
  return html`<fieldset id="f-channels-group" aria-describedby="f-channels-hint">
    <legend>Alert channels</legend>
    <p class="hint field-hint" id="f-channels-hint">
      The same events as the webhook, sent to email, chat or ntfy. <a href="#/channels">Manage channels</a>
    </p>
    ${radio(
      'default',
      "Use the key's default channels",
      html`<span class="hint">${defaults.length ? ` (now: ${defaults.join(', ')})` : ' (none is set)'}</span>`,
    )}
    ${radio('chosen', 'Only these channels:')}
    <div class="channel-picks" role="group" aria-label="Channels to alert" hidden=${mode !== 'chosen'}>
      ${list.length === 0 ? html`<p class="hint">This key has no channels yet: make one in Channels.</p>` : null}
      ${list.map(
        (ch) =>
          html`<label class="check"
            ><input
              type="checkbox"
              name="channel"
              value=${ch.id}
              data-channel=${ch.id}
              checked=${chosen.includes(ch.id)}
              onChange=${toggle(ch.id)}
            />
            ${ch.name}<span class="hint ch-kind">${TYPE_WORDS[ch.type] ?? ch.type}</span></label
          >`,
      )}
    </div>
    ${radio('none', 'None (the webhook only)')}
    <${FieldError} model=${model} id="f-channels-error" />
  </fieldset>`;
}
