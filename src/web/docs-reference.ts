// The docs page's reference section: the machine-readable contract, the operations pages, and the
// reference files of docs/ (served at /docs/<name>.md), so a reader of the running service can reach all
// of what a reader of the repository has.
import type { Config } from '../config.js';
import { code, html, type Markup } from './html.js';

/** A reference file the page links to. */
export interface DocLink {
  path: string;
  title: string;
}

export function referenceSection(c: Readonly<Config>, guides: readonly DocLink[]): Markup {
  return html`<section id="reference" class="card" aria-labelledby="reference-title">
    <h2 id="reference-title">Reference</h2>
    <ul class="links">
      <li>
        <a href="/openapi.json">/openapi.json</a>: the OpenAPI 3.1 document, generated from the schemas that validate
        requests, with this service's limits.
      </li>
      <li>
        <a href="/status">/status</a>: what the service is doing now, and over the last hour: renders by outcome (ok,
        failed, blocked, timed out, rate-limited, queue full), p50 and p95 render time and queue wait, as small charts
        with their tables; failing monitors, the webhook backlog and failures, disk used by captures and results. Times
        are in UTC. The same figures as <a href="/api/status">/api/status</a>: the last hour's renders are those of the
        node that answered, kept in its memory (p50 and p95 within 10 %); monitors, webhooks and disk are the whole
        service's, from its database.
      </li>
      <li>
        <a href="/metrics">/metrics</a>: Prometheus
        metrics.${
          c.auth.publicOperations
            ? ''
            : [
                html` Here ${code('/api/status')} and ${code('/metrics')} need an API key (`,
                html`${code('auth.publicOperations')} is false); Prometheus sends it with `,
                html`${code('authorization: {credentials: <key>}')}.`,
              ]
        }
      </li>
      <li>
        <a href="/health">/health</a> (the process runs) and <a href="/ready">/ready</a> (the database and the browser
        are usable, and whether Chromium's sandbox is on).
      </li>
    </ul>
    ${
      guides.length
        ? html`<h3>In depth</h3>
            <p>Every topic in full, as Markdown text (the files of the repository's ${code('docs/')} folder):</p>
            <ul class="links" aria-label="Reference files">
              ${guides.map((g) => html`<li><a href="${g.path}">${g.title}</a></li>`)}
            </ul>`
        : ''
    }
  </section>`;
}
