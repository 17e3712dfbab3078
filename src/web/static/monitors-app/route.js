// Where the dashboard is, kept in the URL's hash so a view can be linked to and survives a reload:
// "#/channels" is the channels view; "#/monitors/{id}/captures/{captureId}" opens a monitor's history on
// one capture (the link an alert's email or chat message carries); "#/" and "#/monitors" the monitors.
// Hashes that are not routes ("#main", the skip link's target) leave the view as it is.
import { html } from '/assets/monitors-app/html.js';
import { useStore } from '/assets/monitors-app/context.js';

/** The dashboard's views, in the order the navigation lists them: [view, hash, words]. */
export const VIEWS = [
  ['monitors', '#/', 'Monitors'],
  ['channels', '#/channels', 'Channels'],
];

/** A hash as a route: { view, monitorId?, captureId? }, or null when it is not one of ours. */
export function parseRoute(hash) {
  if (!hash || hash === '#') return { view: 'monitors' };
  if (!hash.startsWith('#/')) return null;
  const parts = hash.slice(2).split('/').filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0 || (parts[0] === 'monitors' && parts.length === 1)) return { view: 'monitors' };
  if (parts[0] === 'channels' && parts.length === 1) return { view: 'channels' };
  if (parts[0] === 'monitors' && parts[2] === 'captures' && parts.length === 4)
    return { view: 'monitors', monitorId: parts[1], captureId: parts[3] };
  if (parts[0] === 'monitors' && parts.length === 2) return { view: 'monitors', monitorId: parts[1] };
  return { view: 'monitors' };
}

/** Follows the hash: on load and on each change (a nav link, Back, a pasted link). Returns the cleanup. */
export function followRoute(store) {
  const apply = async () => {
    const route = parseRoute(location.hash);
    if (!route) return;
    const title = VIEWS.find(([view]) => view === route.view)?.[2] ?? 'Monitors';
    document.title = `${title} · Pagewatch`;
    store.view.value = route.view;
    if (route.monitorId && store.key.value) {
      await store.loadList();
      await store.openHistory(route.monitorId, route.captureId ?? null);
    }
  };
  apply();
  window.addEventListener('hashchange', apply);
  return () => window.removeEventListener('hashchange', apply);
}

/** The dashboard's own navigation: one link per view, the current one marked. */
export function ViewNav() {
  const store = useStore();
  return html`<nav class="view-nav" aria-label="Dashboard">
    <ul>
      ${VIEWS.map(
        ([view, hash, words]) =>
          html`<li>
            <a href=${hash} id=${`nav-${view}`} aria-current=${store.view.value === view ? 'page' : undefined}
              >${words}</a
            >
          </li>`,
      )}
    </ul>
  </nav>`;
}
