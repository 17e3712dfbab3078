// The monitor dashboard (/monitors): list, create, edit, pause, run now, delete, and the history of a
// monitor with previous / current / diff views and a slider compare; and the key's alert channels
// (#/channels, monitors-app/route.js). It uses the same public API as any
// client, with the key the user pastes (kept in localStorage by api.js). Each concern is a component in
// its own folder; they share one store (monitors-app/store.js) through context.
import { render } from '/assets/vendor/preact.js';
import { useEffect, useLayoutEffect } from '/assets/vendor/preact-hooks.js';
import { html } from '/assets/monitors-app/html.js';
import { Alert } from '/assets/monitors-app/format.js';
import { Store, useStore } from '/assets/monitors-app/context.js';
import { createStore } from '/assets/monitors-app/store.js';
import { KeyPanel } from '/assets/monitors-key/key.js';
import { MonitorList, DeleteDialog, BulkDialog } from '/assets/monitors-list/list.js';
import { MonitorForm } from '/assets/monitors-form/form.js';
import { History } from '/assets/monitors-history/history.js';
import { followRoute, ViewNav } from '/assets/monitors-app/route.js';
import { createChannels } from '/assets/monitors-channels/state.js';
import { ChannelsView } from '/assets/monitors-channels/channels.js';
import { FeedsPanel } from '/assets/monitors-feeds/feeds.js';
import { TransferPanel } from '/assets/monitors-transfer/transfer.js';

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
    const stopRoute = followRoute(store);
    const stopRefresh = store.startRefresh();
    return () => {
      stopRoute();
      stopRefresh();
    };
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
  // Both views stay drawn, one hidden: a half-filled form or an open history waits for the way back.
  return html`<${Store.Provider} value=${store}>
    <h1>Monitors</h1>
    <p class="lead">
      Pages captured on a schedule and compared with their previous capture: see what changed, and where.
    </p>
    <${KeyPanel} />
    <${ViewNav} />
    <${Notices} />
    <div id="view-monitors" hidden=${store.view.value !== 'monitors'}><${MonitorsView} /></div>
    <div id="view-channels" hidden=${store.view.value !== 'channels'}><${ChannelsView} /></div>
  <//>`;
}

function MonitorsView() {
  const store = useStore();
  return html`<${MonitorList} />
    ${store.form.value ? html`<${MonitorForm} key=${store.form.value.serial} open=${store.form.value} />` : null}
    ${
      store.history.value ? html`<${History} key=${store.history.value.monitorId} hist=${store.history.value} />` : null
    }
    <${FeedsPanel} />
    <${TransferPanel} />
    <${DeleteDialog} />
    <${BulkDialog} />`;
}

const store = createStore();
store.channels = createChannels(store);
render(html`<${App} store=${store} />`, document.getElementById('main'));
