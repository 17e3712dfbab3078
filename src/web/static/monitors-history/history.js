// A monitor's history: its captures (newest first, Load more), each with its verdict's badge, the
// selected one in the viewer, and the monitor's webhook deliveries below.
import { useEffect, useRef } from '/assets/vendor/preact-hooks.js';
import { html } from '/assets/monitors-app/html.js';
import { absoluteTime, Time } from '/assets/monitors-app/format.js';
import { useStore } from '/assets/monitors-app/context.js';
import { listWords, VerdictBadge, verdictOf } from '/assets/monitors-viewer/verdict.js';
import { Viewer } from '/assets/monitors-viewer/viewer.js';
import { Deliveries } from '/assets/monitors-deliveries/deliveries.js';

function CaptureItem({ c, m, selected, onSelect }) {
  // The verdict's kind: a difference under the threshold does not look like "no difference at all".
  const { kind } = verdictOf(c, m);
  return html`<li>
    <button type="button" class="capture" data-capture=${c.id} aria-pressed=${String(selected)} onClick=${onSelect}>
      <span class="cap-time"><${Time} iso=${c.takenAt} /><span class="hint abs">${absoluteTime(c.takenAt)}</span></span>
      <span class="cap-facts">
        <${VerdictBadge} kind=${kind} />
        ${c.status === 'failed' ? null : html`<span class="ratio">${listWords(c, kind)}</span>`}
        ${
          c.textChangesTotal
            ? html`<span class="ratio"
                >${`${c.textChangesTotal.toLocaleString()} text change${c.textChangesTotal === 1 ? '' : 's'}`}</span
              >`
            : null
        }
        <span class="hint"
          >${`${c.status}${c.reason && c.reason !== 'schedule' ? ` · ${c.reason}` : ''}${c.login ? ` · login ${c.login}` : ''}`}</span
        >
      </span>
      ${c.error ? html`<span class="cap-error">${`${c.error.code}: ${c.error.message}`}</span>` : null}
    </button>
  </li>`;
}

export function History({ hist }) {
  const store = useStore();
  const section = useRef(null);
  const title = useRef(null);
  const m = store.monitor(hist.monitorId);
  const running = store.running.value.has(hist.monitorId);
  const captures = hist.captures.value;

  useEffect(() => {
    section.current.scrollIntoView({ block: 'start' });
    title.current.focus();
  }, []);

  if (!m) return null;
  return html`<section id="history-section" class="history" aria-labelledby="history-title" ref=${section}>
    <div class="section-head">
      <h2 id="history-title" tabindex="-1" ref=${title}>History of “${m.name}”</h2>
      <div class="section-actions">
        <button
          type="button"
          id="history-run"
          disabled=${running}
          aria-busy=${String(running)}
          onClick=${() => store.runNow(hist.monitorId)}
        >
          ${running ? html`<span class="spinner" aria-hidden="true"></span>` : null}${running ? 'Capturing…' : 'Run now'}
        </button>
        <button type="button" id="history-close" onClick=${() => store.closeHistory()}>Close history</button>
      </div>
    </div>
    <p class="hint history-url" id="history-url">
      <a href=${m.url} target="_blank" rel="noopener noreferrer">${m.url}</a>${` · ${m.schedule} (${m.timezone})`}
    </p>
    ${
      m.login
        ? html`<p class="history-login" id="history-login">
            <span
              >Saved login: signed in <${Time} iso=${m.login.savedAt} />; kept until ${absoluteTime(m.login.expiresAt)},
              then the steps sign in again.</span
            >
            <button type="button" id="history-forget-login" onClick=${() => store.forgetLogin(m.id)}>
              Forget login
            </button>
          </p>`
        : null
    }
    <div class="history-grid">
      <div class="card captures-card">
        <h3>Captures</h3>
        <p id="captures-empty" class="muted" hidden=${running || captures.length > 0}>
          No captures yet. <em>Run now</em> takes one.
        </p>
        <ul id="captures" class="captures" aria-label="Captures, newest first">
          ${
            running
              ? html`<li class="pending">
                  <span class="spinner" aria-hidden="true"></span> Capture queued or running…
                </li>`
              : null
          }
          ${captures.map(
            (c) =>
              html`<${CaptureItem}
                key=${c.id}
                c=${c}
                m=${m}
                selected=${c.id === hist.selectedId.value}
                onSelect=${() => store.selectCapture(hist, c.id)}
              />`,
          )}
        </ul>
        <button
          type="button"
          id="captures-more"
          hidden=${!hist.nextCursor.value}
          onClick=${() => store.loadCaptures({ more: true })}
        >
          Load more
        </button>
      </div>
      <${Viewer} hist=${hist} m=${m} section=${section} />
    </div>
    <${Deliveries} monitor=${m} />
  </section>`;
}
