// The monitor dashboard (/monitors): list, create, edit, pause, run now, delete, and the history of a
// monitor with previous / current / diff views and a slider compare. It uses the same public API as any
// client, with the key the user pastes (kept in localStorage by api.js). Each concern is a component in
// its own folder; they share one store (monitors-app/store.js) through context.
import { render } from '/assets/vendor/preact.js';
import { useEffect, useLayoutEffect } from '/assets/vendor/preact-hooks.js';
import { html } from '/assets/monitors-app/html.js';
import { Alert } from '/assets/monitors-app/format.js';
import { Store, useStore } from '/assets/monitors-app/context.js';
import { createStore } from '/assets/monitors-app/store.js';
import { KeyPanel } from '/assets/monitors-key/key.js';
import { MonitorList, DeleteDialog } from '/assets/monitors-list/list.js';
import { MonitorForm } from '/assets/monitors-form/form.js';
import { History } from '/assets/monitors-history/history.js';
import { FeedsPanel } from '/assets/monitors-feeds/feeds.js';

/** The passing notice (announced politely) and the page's error. */
function Notices() {
  const store = useStore();
  return html`<div id="notice" class="notice-area" role="status" aria-live="polite">
      <${Alert} alert=${store.shownNotice.value} />
    </div>
    <div id="page-error" role="alert"><${Alert} alert=${store.pageError.value} /></div>`;
}

function App({ store }) {
  useEffect(() => {
    if (store.key.value) store.showSignedIn();
    else store.keyError.value = { kind: 'warn', message: 'Paste an API key to see and manage your monitors.' };
    return store.startRefresh();
  }, []);
  // An action that moved things (a delete, a closed form) names what takes the focus once drawn.
  const focusSelector = store.focus.value;
  useLayoutEffect(() => {
    if (!focusSelector) return;
    store.focus.value = null;
    for (const selector of focusSelector) {
      const target = document.querySelector(selector);
      if (target) return target.focus();
    }
  });
  return html`<${Store.Provider} value=${store}>
    <h1>Monitors</h1>
    <p class="lead">
      Pages captured on a schedule and compared with their previous capture: see what changed, and where.
    </p>
    <${KeyPanel} />
    <${Notices} />
    <${MonitorList} />
    ${store.form.value ? html`<${MonitorForm} key=${store.form.value.serial} open=${store.form.value} />` : null}
    ${
      store.history.value ? html`<${History} key=${store.history.value.monitorId} hist=${store.history.value} />` : null
    }
    <${FeedsPanel} />
    <${DeleteDialog} />
  <//>`;
}

render(html`<${App} store=${createStore()} />`, document.getElementById('main'));
