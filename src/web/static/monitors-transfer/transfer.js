// Export and import: the key's monitors downloaded as one JSON file (secrets left out, and said so), and a
// file imported — that export, a changedetection.io backup (zip or url-watches.json) or urlwatch's
// urls.yaml — with what was imported, skipped and not mapped shown in words.
import { useSignal } from '/assets/vendor/signals.js';
import { ApiError, api } from '/assets/api.js';
import { html } from '/assets/monitors-app/html.js';
import { Alert } from '/assets/monitors-app/format.js';
import { useStore } from '/assets/monitors-app/context.js';

/** The Content-Type the service reads a file's format from: the browser's, else by its extension. */
function typeOf(file) {
  if (file.type === 'application/zip' || /\.zip$/i.test(file.name)) return 'application/zip';
  if (/\.ya?ml$/i.test(file.name) || /yaml/.test(file.type)) return 'application/yaml';
  return 'application/json';
}

export function TransferPanel() {
  const store = useStore();
  const key = store.key.value;
  const result = useSignal(null);
  const error = useSignal(null);
  const busy = useSignal(false);
  if (!key || !store.monitors.value) return null;
  const fail = (err, what) =>
    (error.value = { kind: 'error', message: `${what}: ${err instanceof ApiError ? err.explanation : err}` });

  async function exportAll() {
    error.value = null;
    try {
      const blob = await (await api('GET', '/api/monitors/export', { key })).blob();
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = 'pagewatch-monitors.json';
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
    } catch (err) {
      fail(err, 'Could not export the monitors');
    }
  }

  async function importFile(event) {
    event.preventDefault();
    const form = event.currentTarget;
    const file = form.elements['import-file'].files[0];
    if (!file) return fail('choose a file first', 'Nothing to import');
    const dryRun = form.elements['import-dry'].checked;
    error.value = null;
    busy.value = true;
    try {
      const res = await fetch(`/api/monitors/import${dryRun ? '?dryRun=true' : ''}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': typeOf(file) },
        body: file,
      });
      const body = await res.json();
      if (!res.ok)
        throw new ApiError(
          res.status,
          body.error?.code ?? `http_${res.status}`,
          body.error?.message,
          body.error?.details ?? [],
        );
      result.value = { ...body, dryRun };
      if (!dryRun) await store.loadList();
    } catch (err) {
      fail(err, 'Could not import the file');
    } finally {
      busy.value = false;
    }
  }

  const r = result.value;
  return html`<section class="card transfer-card" aria-labelledby="transfer-title">
    <h2 id="transfer-title">Export and import</h2>
    <p class="hint">
      Export downloads this key's monitors as JSON, secrets left out (the file names each one). Import takes that file,
      a changedetection.io backup (.zip or url-watches.json) or urlwatch's urls.yaml.
    </p>
    <p><button type="button" id="export-monitors" onClick=${exportAll}>Export monitors</button></p>
    <form id="import-form" class="import-form" onSubmit=${importFile}>
      <label for="import-file">File to import</label>
      <input type="file" id="import-file" name="import-file" accept=".json,.zip,.yaml,.yml" />
      <label class="check"
        ><input type="checkbox" id="import-dry" name="import-dry" /> Only show what would happen</label
      >
      <button type="submit" class="primary" id="import-submit" disabled=${busy.value}>Import</button>
    </form>
    <div role="alert"><${Alert} alert=${error.value} /></div>
    ${
      r
        ? html`<div id="import-result" role="status">
            <p>
              ${
                r.dryRun
                  ? `${r.wouldImport ?? 0} monitors would be imported from the ${r.format} file.`
                  : `${r.imported.length} monitors imported from the ${r.format} file.`
              }
              ${r.skipped.length ? ` ${r.skipped.length} skipped.` : ''}
            </p>
            ${
              r.skipped.length
                ? html`<h3>Skipped</h3>
                    <ul id="import-skipped">
                      ${r.skipped.map((s) => html`<li><strong>${s.entry}</strong>: ${s.reason}</li>`)}
                    </ul>`
                : null
            }
            ${
              r.notMapped.length
                ? html`<h3>Not mapped</h3>
                    <ul id="import-not-mapped">
                      ${r.notMapped.map((n) => html`<li><strong>${n.name}</strong>: ${n.fields.join(', ')}</li>`)}
                    </ul>`
                : null
            }
          </div>`
        : null
    }
  </section>`;
}
