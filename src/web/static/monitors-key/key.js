// The key panel: saving a key (checked against the API first) and forgetting it. What a refused key
// does to the rest of the page is the store's handleError.
import { useRef } from '/assets/vendor/preact-hooks.js';
import { html } from '/assets/monitors-app/html.js';
import { Alert } from '/assets/monitors-app/format.js';
import { useStore } from '/assets/monitors-app/context.js';
import { useSignal } from '/assets/vendor/signals.js';

export function KeyPanel() {
  const store = useStore();
  const input = useRef(null);
  const saving = useSignal(false);
  const key = store.key.value;

  async function submit(event) {
    event.preventDefault();
    const typed = input.current.value.trim();
    if (!typed) {
      store.keyError.value = { kind: 'error', message: 'Paste an API key first.' };
      input.current.focus();
      return;
    }
    saving.value = true;
    const accepted = await store.saveKey(typed);
    saving.value = false;
    if (accepted && store.key.value === typed) input.current.value = '';
    if (!accepted) {
      input.current.focus();
      input.current.select();
    }
  }

  function forget() {
    store.forgetKey();
    input.current.focus();
  }

  return html`<section class="card key-card" aria-labelledby="key-title">
    <h2 id="key-title" class="sr-only">API key</h2>
    <form id="key-form" class="key-form" novalidate onSubmit=${submit}>
      <div class="key-field">
        <label for="key-input">API key <span class="hint">kept in this browser only</span></label>
        <input
          ref=${input}
          type="password"
          id="key-input"
          autocomplete="off"
          spellcheck="false"
          placeholder=${key ? 'Saved — paste another key to replace it' : 'pw_live_…'}
          aria-describedby="key-hint key-state"
        />
      </div>
      <div class="key-buttons">
        <button type="submit" class="primary" id="key-save" disabled=${saving.value}>Save key</button>
        <button type="button" id="key-forget" disabled=${!key} onClick=${forget}>Forget key</button>
      </div>
    </form>
    <p class="hint" id="key-hint">
      Make one on the server with <code>npx pagewatch keys create --name "dashboard"</code>. The dashboard only sees
      that key's monitors.
    </p>
    <p id="key-state" class="key-state" role="status">
      ${key ? `A key is saved in this browser (${key.slice(0, 12)}…).` : 'No key saved.'}
    </p>
    <div id="key-error" role="alert"><${Alert} alert=${store.keyError.value} /></div>
  </section>`;
}
