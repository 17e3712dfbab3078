// The monitor list: its rows (keyed by monitor, so a refresh keeps the focus where it is), each row's
// actions (history, run now, pause, edit, delete) and the dialog that confirms a delete.
import { useEffect, useRef } from '/assets/vendor/preact-hooks.js';
import { html } from '/assets/monitors-app/html.js';
import { StatusBadge, statusOf, Time, Words } from '/assets/monitors-app/format.js';
import { useStore } from '/assets/monitors-app/context.js';
import { describeSchedule } from '/assets/monitors-form/cron.js';
import { LastResultBadge } from '/assets/monitors-viewer/verdict.js';

function Row({ m }) {
  const store = useStore();
  const running = store.running.value.has(m.id);
  // In words first (what a person reads), the expression and its zone below (what the API takes).
  const schedule = describeSchedule(m.schedule, m.timezone);
  const button = (action, visible, hidden, onClick, extra = {}) =>
    html`<button
      type="button"
      class="small${action === 'delete' ? ' danger' : ''}"
      data-action=${action}
      data-id=${m.id}
      onClick=${onClick}
      ...${extra}
    >
      <${Words} visible=${visible} hidden=${hidden} />
    </button>`;
  return html`<tr data-id=${m.id}>
    <td class="c-name" data-label="Name">
      <a class="name" target="_blank" rel="noopener noreferrer" href=${m.url} title=${`Open ${m.url} in a new tab`}
        >${m.name}</a
      >
      <div class="url muted">${m.name === m.url ? '' : m.url}</div>
      ${
        m.tags?.length
          ? html`<ul class="tags" aria-label="Tags">
              ${m.tags.map((tag) => html`<li class="tag">${tag}</li>`)}
            </ul>`
          : null
      }
    </td>
    <td class="c-status" data-label="Status">
      <div class="v">
        <${StatusBadge} kind=${statusOf(m)} />
        ${m.paused && m.lastStatus ? html` <${LastResultBadge} status=${m.lastStatus} />` : null}
        ${
          m.skippedRuns
            ? html`<span class="hint skipped" title="Ticks skipped because the previous capture was still running"
                >${m.skippedRuns} skipped</span
              >`
            : null
        }
      </div>
    </td>
    <td class="c-schedule" data-label="Schedule">
      <div class="v">
        <span class="words">${schedule.ok ? schedule.words : ''}</span><code>${m.schedule}</code
        ><span class="tz muted">${schedule.ok ? '' : m.timezone}</span>
      </div>
    </td>
    <td class="c-last" data-label="Last run">
      <div class="v"><${Time} iso=${m.lastRunAt} absent="never" /></div>
    </td>
    <td class="c-change" data-label="Last change">
      <div class="v"><${Time} iso=${m.lastChangeAt} absent="none" /></div>
    </td>
    <td class="c-next" data-label="Next run">
      <div class="v">${m.paused ? html`<span class="muted">paused</span>` : html`<${Time} iso=${m.nextRunAt} />`}</div>
    </td>
    <td class="c-actions">
      <div class="actions">
        ${button('history', 'History', `of ${m.name}`, () => store.openHistory(m.id))}
        ${button(
          'run',
          running ? 'Capturing…' : 'Run now',
          `${running ? 'of' : 'for'} ${m.name}`,
          () => store.runNow(m.id),
          { disabled: running, 'aria-busy': String(running) },
        )}
        ${button('pause', m.paused ? 'Resume' : 'Pause', m.name, () => store.togglePause(m.id))}
        ${button('edit', 'Edit', m.name, () => store.openEdit(m.id))}
        ${button('delete', 'Delete', m.name, (event) => store.askDelete(m.id, event.currentTarget))}
      </div>
    </td>
  </tr>`;
}

/** The tag filter (a select of the key's tags) and the bulk actions on the selected tag. */
function TagFilter() {
  const store = useStore();
  const tags = store.tags.value;
  const tag = store.tagFilter.value;
  if (tags.length === 0) return null;
  return html`<div class="tag-filter" role="group" aria-label="Filter by tag">
    <label for="tag-filter">Tag</label>
    <select id="tag-filter" value=${tag} onChange=${(e) => (store.tagFilter.value = e.currentTarget.value)}>
      <option value="">All monitors</option>
      ${tags.map((t) => html`<option value=${t.tag}>${t.tag} (${t.monitors})</option>`)}
    </select>
    ${
      tag
        ? html`<button type="button" class="small" id="bulk-pause" onClick=${() => store.bulk('pause')}>
              Pause all<span class="sr-only"> tagged ${tag}</span></button
            ><button type="button" class="small" id="bulk-resume" onClick=${() => store.bulk('resume')}>
              Resume all<span class="sr-only"> tagged ${tag}</span></button
            ><button type="button" class="small" id="bulk-run" onClick=${() => store.bulk('run')}>
              Run all now<span class="sr-only"> tagged ${tag}</span></button
            ><button
              type="button"
              class="small danger"
              id="bulk-delete"
              onClick=${(e) => store.askBulk('delete', e.currentTarget)}
            >
              Delete all…<span class="sr-only"> tagged ${tag}</span>
            </button>`
        : null
    }
  </div>`;
}

/** The dialog that confirms a bulk delete. */
export function BulkDialog() {
  const store = useStore();
  const dialog = useRef(null);
  const asked = store.bulkAsking.value;
  useEffect(() => {
    if (asked && !dialog.current.open) {
      dialog.current.returnValue = '';
      dialog.current.showModal();
    }
  }, [asked]);
  const count = asked ? (store.tags.value.find((t) => t.tag === asked.tag)?.monitors ?? 0) : 0;
  return html`<dialog
    id="bulk-dialog"
    ref=${dialog}
    aria-labelledby="bulk-title"
    aria-describedby="bulk-text"
    onClose=${() => store.answerBulk(dialog.current.returnValue)}
  >
    <form method="dialog">
      <h2 id="bulk-title">${asked ? `Delete every monitor tagged “${asked.tag}”?` : 'Delete monitors?'}</h2>
      <p id="bulk-text">
        ${asked ? `${count} monitors stop, and all their captures and images are deleted. This cannot be undone.` : ''}
      </p>
      <div class="form-actions">
        <button type="submit" value="cancel" id="bulk-cancel" autofocus>Cancel</button>
        <button type="submit" value="confirm" class="danger" id="bulk-confirm">Delete all</button>
      </div>
    </form>
  </dialog>`;
}

export function MonitorList() {
  const store = useStore();
  const all = store.monitors.value;
  if (all === null) return null;
  const tag = store.tagFilter.value.toLowerCase();
  const monitors = tag ? all.filter((m) => (m.tags ?? []).some((t) => t.toLowerCase() === tag)) : all;
  return html`<section id="list-section" aria-labelledby="list-title">
    <div class="section-head">
      <h2 id="list-title">
        Your monitors <span id="list-count" class="muted">${monitors.length ? `(${monitors.length})` : ''}</span>
      </h2>
      <div class="section-actions">
        <button type="button" id="refresh" onClick=${() => store.loadList()}>Refresh</button>
        <button type="button" class="primary" id="new-monitor" onClick=${() => store.openCreate()}>New monitor</button>
      </div>
    </div>
    <p id="list-updated" class="hint list-updated">${store.listUpdated.value}</p>
    <${TagFilter} />
    <div id="list-empty" class="card empty" hidden=${all.length > 0}>
      <p><strong>No monitors yet.</strong></p>
      <p class="muted">
        A monitor captures a page on a schedule and tells you when it changes. Create one with <em>New monitor</em>.
      </p>
    </div>
    <div class="table-wrap card list-card" id="list-wrap" hidden=${monitors.length === 0}>
      <table class="monitors">
        <caption class="sr-only">
          Monitors of this key
        </caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Status</th>
            <th scope="col">Schedule</th>
            <th scope="col">Last run</th>
            <th scope="col">Last change</th>
            <th scope="col">Next run</th>
            <th scope="col"><span class="sr-only">Actions</span></th>
          </tr>
        </thead>
        <tbody id="monitor-rows">
          ${monitors.map((m) => html`<${Row} key=${m.id} m=${m} />`)}
        </tbody>
      </table>
    </div>
  </section>`;
}

export function DeleteDialog() {
  const store = useStore();
  const dialog = useRef(null);
  const target = store.deleting.value;
  const m = target && store.monitor(target.id);
  useEffect(() => {
    if (m && !dialog.current.open) {
      dialog.current.returnValue = '';
      dialog.current.showModal();
    }
  }, [m]);
  return html`<dialog
    id="delete-dialog"
    ref=${dialog}
    aria-labelledby="delete-title"
    aria-describedby="delete-text"
    onClose=${() => store.answerDelete(dialog.current.returnValue)}
  >
    <form method="dialog">
      <h2 id="delete-title">${m ? `Delete “${m.name}”?` : 'Delete monitor?'}</h2>
      <p id="delete-text">
        ${m ? 'The monitor stops, and all its captures and images are deleted. This cannot be undone.' : ''}
      </p>
      <div class="form-actions">
        <button type="submit" value="cancel" id="delete-cancel" autofocus>Cancel</button>
        <button type="submit" value="delete" class="danger" id="delete-confirm">Delete</button>
      </div>
    </form>
  </dialog>`;
}
