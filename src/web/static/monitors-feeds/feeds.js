// The feeds panel: Atom feed URLs of a monitor's, a tag's or the key's changes. A feed's URL is shown once,
// when it is made or rotated (the service keeps only a hash of its token), with a button to copy it.
import { useEffect } from '/assets/vendor/preact-hooks.js';
import { useSignal } from '/assets/vendor/signals.js';
import { ApiError, api } from '/assets/api.js';
import { html } from '/assets/monitors-app/html.js';
import { Alert, Time } from '/assets/monitors-app/format.js';
import { useStore } from '/assets/monitors-app/context.js';

const enc = encodeURIComponent;

export function FeedsPanel() {
  const store = useStore();
  const key = store.key.value;
  const feeds = useSignal(null);
  const shown = useSignal(null); // {id, url}: the URL just made or rotated
  const error = useSignal(null);
  const scope = useSignal('key');
  const monitorId = useSignal('');
  const tag = useSignal('');
  const call = (method, path, body) => api(method, path, { key, body });
  const fail = (err, what) =>
    (error.value = { kind: 'error', message: `${what}: ${err instanceof ApiError ? err.explanation : err}` });

  async function load() {
    try {
      feeds.value = (await (await call('GET', '/api/feeds')).json()).feeds;
    } catch (err) {
      fail(err, 'Could not list the feeds');
    }
  }
  useEffect(() => {
    if (key) load();
  }, [key]);
  if (!key || !store.monitors.value) return null;
  const monitors = store.monitors.value;
  const nameOf = (id) => monitors.find((m) => m.id === id)?.name ?? id;
  const what = (f) =>
    f.scope === 'monitor' ? `Monitor ${nameOf(f.monitorId)}` : f.scope === 'tag' ? `Tag ${f.tag}` : 'All monitors';

  async function create(event) {
    event.preventDefault();
    error.value = null;
    const body = { scope: scope.value };
    if (scope.value === 'monitor') body.monitorId = monitorId.value || monitors[0]?.id;
    if (scope.value === 'tag') body.tag = tag.value;
    try {
      const made = await (await call('POST', '/api/feeds', body)).json();
      shown.value = { id: made.id, url: made.url };
      await load();
    } catch (err) {
      fail(err, 'Could not make the feed');
    }
  }
  async function rotate(f) {
    try {
      const made = await (await call('POST', `/api/feeds/${enc(f.id)}/rotate`)).json();
      shown.value = { id: made.id, url: made.url };
      await load();
    } catch (err) {
      fail(err, 'Could not rotate the feed');
    }
  }
  async function revoke(f) {
    try {
      await call('DELETE', `/api/feeds/${enc(f.id)}`);
      if (shown.value?.id === f.id) shown.value = null;
      await load();
    } catch (err) {
      fail(err, 'Could not revoke the feed');
    }
  }
  async function copy() {
    try {
      await navigator.clipboard.writeText(shown.value.url);
      error.value = { kind: 'ok', message: 'Feed URL copied.' };
    } catch {
      error.value = { kind: 'warn', message: 'Copying was refused: select the URL and copy it yourself.' };
    }
  }

  return html`<section class="card feeds-card" aria-labelledby="feeds-title">
    <h2 id="feeds-title">Feeds</h2>
    <p class="hint">
      An Atom feed of changes for a feed reader. Its URL is shown once: anyone with it can read the feed.
    </p>
    <form id="feed-form" class="feed-form" onSubmit=${create}>
      <label for="feed-scope">Feed of</label>
      <select id="feed-scope" value=${scope.value} onChange=${(e) => (scope.value = e.currentTarget.value)}>
        <option value="key">All monitors</option>
        <option value="monitor">One monitor</option>
        <option value="tag">A tag</option>
      </select>
      ${
        scope.value === 'monitor'
          ? html`<label for="feed-monitor">Monitor</label>
              <select
                id="feed-monitor"
                value=${monitorId.value}
                onChange=${(e) => (monitorId.value = e.currentTarget.value)}
              >
                ${monitors.map((m) => html`<option value=${m.id}>${m.name}</option>`)}
              </select>`
          : null
      }
      ${
        scope.value === 'tag'
          ? html`<label for="feed-tag">Tag</label>
              <input id="feed-tag" value=${tag.value} onInput=${(e) => (tag.value = e.currentTarget.value)} />`
          : null
      }
      <button type="submit" class="primary" id="feed-create">Make feed</button>
    </form>
    <div role="status" aria-live="polite"><${Alert} alert=${error.value} /></div>
    ${
      shown.value
        ? html`<div class="feed-url">
            <label for="feed-url">New feed URL (shown only now)</label>
            <input id="feed-url" readonly value=${shown.value.url} />
            <button type="button" id="feed-copy" onClick=${copy}>Copy URL</button>
          </div>`
        : null
    }
    ${
      feeds.value?.length
        ? html`<ul class="feed-list">
            ${feeds.value.map(
              (f) =>
                html`<li key=${f.id}>
                  <span>${what(f)}</span> <span class="hint">made <${Time} iso=${f.createdAt} /></span>
                  <button type="button" onClick=${() => rotate(f)} aria-label=${`Rotate URL of the feed: ${what(f)}`}>
                    Rotate URL
                  </button>
                  <button type="button" onClick=${() => revoke(f)} aria-label=${`Revoke the feed: ${what(f)}`}>
                    Revoke
                  </button>
                </li>`,
            )}
          </ul>`
        : html`<p class="hint">No feeds yet.</p>`
    }
  </section>`;
}
