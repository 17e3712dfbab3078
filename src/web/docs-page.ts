// GET /docs: one server-rendered page of documentation that states this service's real configuration
// (limits, queue, retry schedule...), not the defaults. Every interpolated value goes through the `html`
// tag below, which escapes it; only fragments the tag itself built are inserted as they are.
import { anonymousBodyLimit, type Config } from '../config.js';
import { trimTrailingSlashes } from '../domain/trim.js';
import { PACKAGE_VERSION } from '../version.js';
import { ERROR_STATUS } from '../errors.js';
import { ERRORS } from './docs-texts.js';
import { breakable, bytes, code, html, Markup, pre } from './html.js';
import { siteHeader } from './site-header.js';
import { monitorsSection } from './docs-monitors.js';
import { operationSections } from './docs-operations.js';
import { referenceSection, type DocLink } from './docs-reference.js';
import { limitRows } from './docs-limits.js';

// --- the page -------------------------------------------------------------------------------------

/** Only a plain origin goes into the copy-paste commands; anything odd falls back to localhost. */
function exampleBase(baseUrl: string, config: Readonly<Config>): string {
  const plain = /^https?:\/\/[A-Za-z0-9.[\]:-]+(\/[A-Za-z0-9._~/-]*)?$/;
  return plain.test(baseUrl) ? trimTrailingSlashes(baseUrl) : `http://localhost:${config.port || 3000}`;
}

const SECTIONS = [
  ['quick-start', 'Quick start'],
  ['authentication', 'Authentication'],
  ['limits', 'Limits'],
  ['errors', 'Errors'],
  ['webhooks', 'Webhooks'],
  ['runtime', 'Runtime behaviour'],
  ['monitors', 'Monitors'],
  ['reference', 'Reference'],
] as const;

/** `guides`: the reference files (docs/*.md) the page links to, in the order listed. */
export function renderDocsPage(config: Readonly<Config>, baseUrl: string, guides: readonly DocLink[] = []): string {
  const c = config;
  const base = exampleBase(baseUrl, c);
  const anonymous = c.auth.anonymous;
  const anonBody = anonymousBodyLimit(c.limits);
  // The figures of /api/status and /metrics are open unless auth.publicOperations is false.
  const openOperations = c.auth.publicOperations
    ? html`, except ${code('GET /api/status')} and ${code('GET /metrics')}`
    : '';
  const keyHeader = anonymous ? '' : ' -H "Authorization: Bearer $PAGEWATCH_KEY"';

  const firstPdf = `curl -X POST ${base}/api/pdf${keyHeader} -H 'Content-Type: application/json' \\
  -d '{"url": "https://example.com"}' -o page.pdf`;
  const firstPng = `curl -X POST ${base}/api/image${keyHeader} -H 'Content-Type: application/json' \\
  -d '{"html": "<h1>Hello</h1>", "fullPage": true}' -o hello.png`;
  const rawHtml = `curl -X POST ${base}/api/pdf${keyHeader} -H 'Content-Type: text/html' \\
  --data-binary @invoice.html -o invoice.pdf
# With options: jq puts the file's HTML into the JSON body, curl reads it from standard input
jq -Rs '{html: ., format: "Letter", landscape: true}' invoice.html |
  curl -X POST ${base}/api/pdf${keyHeader} -H 'Content-Type: application/json' --data-binary @- -o invoice.pdf`;
  const asyncFlow = `# On the server: a key (printed once, with its webhook secret whsec_…)
npx pagewatch keys create --name my-app
export PAGEWATCH_KEY=pw_live_…

curl -s -X POST ${base}/api/pdf -H "Authorization: Bearer $PAGEWATCH_KEY" \\
  -H 'Content-Type: application/json' -H 'Idempotency-Key: invoice-42' \\
  -d '{"url": "https://example.com", "async": true,
       "webhookUrl": "https://hooks.example.com/pagewatch"}'
# 202 {"id":"job_…","kind":"pdf","status":"queued",…}   Location: /api/jobs/job_…

# The job (status, result.url), then its result
curl -s ${base}/api/jobs/job_… -H "Authorization: Bearer $PAGEWATCH_KEY"
curl -s ${base}/api/jobs/job_…/result -H "Authorization: Bearer $PAGEWATCH_KEY" -o page.pdf`;
  const keysCli = `# Prints the key and its webhook secret, once
npx pagewatch keys create --name "billing-service"
# id, prefix, name, state, last use (never the key)
npx pagewatch keys list
# Refused from its next request; its jobs are canceled (renders in progress stop), its monitors
# paused and its pending webhooks failed, also in a service that is running
npx pagewatch keys revoke key_0123456789abcdef
# Revoke, then delete the key with all its jobs, results, monitors, captures and deliveries
npx pagewatch keys delete key_0123456789abcdef --purge
# A new webhook secret; the old one also signs for webhooks.secretGraceHours
npx pagewatch keys rotate-secret key_0123456789abcdef`;
  const page = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Docs · Pagewatch</title>
        <link rel="icon" href="/assets/icon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/assets/base.css" />
        <link rel="stylesheet" href="/assets/docs.css" />
      </head>
      <body>
        ${new Markup(siteHeader('/docs'))}
        <main id="main">
          <h1>Pagewatch documentation</h1>
          <p class="lead">
            Render web pages to PDF and images over HTTP, as async jobs with signed webhooks, and watch pages for visual
            changes. Every figure on this page is this service's own configuration (Pagewatch ${PACKAGE_VERSION}). The
            machine-readable contract is <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).
          </p>
          <div class="docs-layout">
            <nav class="toc card" aria-labelledby="toc-title">
              <h2 id="toc-title">Contents</h2>
              <ol>
                ${SECTIONS.map(([id, title]) => html`<li><a href="#${id}">${title}</a></li>`)}
              </ol>
            </nav>
            <div class="docs-body">
              <section id="quick-start" class="card" aria-labelledby="quick-start-title">
                <h2 id="quick-start-title">Quick start</h2>
                <h3>Install and start</h3>
                ${pre(
                  `npm install && npm start   # installs (finds or installs Chromium), serves on port 3000
npm test                   # the whole test suite: real Chromium, real HTTP, real SQLite`,
                  'Install and start',
                )}
                <p>
                  Node 20.19 or newer. The service starts without a browser too; <a href="/ready">/ready</a> then
                  answers 503 and renders answer ${code('503 unavailable')} until one can be launched.
                </p>
                <h3>Your first PDF and PNG</h3>
                <p>
                  ${
                    anonymous
                      ? html`No key is needed for synchronous renders (the anonymous tier:
                        ${c.rateLimit.anonymousPerMinute} requests a minute per IP, bodies up to ${bytes(anonBody)},
                        ${c.limits.anonymousConcurrencyPerIp} at a time, PDFs up to ${c.limits.anonymousMaxPdfPages}
                        pages).`
                      : html`The anonymous tier is off on this service: every request needs a key (see
                          <a href="#authentication">Authentication</a>).`
                  }
                </p>
                ${pre(firstPdf, 'A URL to PDF')} ${pre(firstPng, 'HTML to PNG')}
                <p>
                  A body of ${code('Content-Type: text/html')} is the same as ${code('{"html": …}')} with every default:
                </p>
                ${pre(rawHtml, 'Raw HTML to PDF')}
                <p>
                  Every option (viewport, device, waits, cookies, paper size, margins, image format, clip…) is in
                  <a href="/openapi.json">the OpenAPI document</a>, with its range and default. Try them in the
                  <a href="/">converter</a>.
                </p>
                <h3>Async jobs and webhooks</h3>
                <p>
                  For volume, add ${code('"async": true')} (API key required). The answer is immediate: ${code('202')}
                  with the job and its ${code('Location')}. With a ${code('webhookUrl')} the service POSTs
                  ${code('job.succeeded')} or ${code('job.failed')} to it when the job ends.
                </p>
                ${pre(asyncFlow, 'An async job with a webhook')}
              </section>

              <section id="authentication" class="card" aria-labelledby="authentication-title">
                <h2 id="authentication-title">Authentication</h2>
                <p>
                  API keys are made and revoked on the server with the CLI; the key and its webhook signing secret are
                  printed once (only a SHA-256 of the key is stored):
                </p>
                ${pre(keysCli, 'Managing keys')}
                <p>
                  Send the key as ${code('Authorization: Bearer pw_live_…')} or as ${code('X-API-Key: pw_live_…')}. A
                  key sees only its own jobs, monitors, captures and deliveries (another key's id answers 404). A key
                  that is sent but unknown or revoked is always ${code('401 unauthorized')}, even where no key is
                  needed.
                </p>
                <h3>Anonymous tier</h3>
                ${
                  anonymous
                    ? html`<p>
                        On: without a key, only synchronous ${code('POST /api/pdf')} and ${code('POST /api/image')} are
                        allowed, with bodies up to <strong>${bytes(anonBody)}</strong> and
                        <strong>${c.rateLimit.anonymousPerMinute}</strong> requests a minute per client IP (an IPv6 /64
                        counts as one). Renders without a key also have a ${code('timeout')} of at most
                        <strong>${c.limits.anonymousMaxTimeoutMs}</strong> ms (more is ${code('400')}), run
                        <strong>${c.limits.anonymousConcurrencyPerIp}</strong> at a time per client IP (one more is
                        ${code('429 rate_limited')}), and make PDFs of at most
                        <strong>${c.limits.anonymousMaxPdfPages}</strong> pages (a longer one is
                        ${code('422 render_failed')}). A key lifts these. Everything else without a key is
                        ${code('401')}${openOperations}. ${code('auth.anonymous: false')} turns the tier off.
                      </p>`
                    : html`<p>
                        Off (${code('auth.anonymous: false')}): every API request needs a key${openOperations}.
                      </p>`
                }
                <h3>Rate limits</h3>
                <p>
                  A key may make <strong>${c.rateLimit.perKeyPerMinute}</strong> requests a
                  minute${anonymous ? html`, an anonymous IP <strong>${c.rateLimit.anonymousPerMinute}</strong>` : ''}.
                  Budgets are token buckets: bursts up to the per-minute figure, refilled continuously. Responses carry
                  ${code('RateLimit-Limit')}, ${code('RateLimit-Remaining')} and ${code('RateLimit-Reset')}; past the
                  budget, ${code('429 rate_limited')} with ${code('Retry-After')}.
                </p>
              </section>

              <section id="limits" class="card" aria-labelledby="limits-title">
                <h2 id="limits-title">Limits</h2>
                <p>
                  The values this service runs with. Operators change them in ${code('config/default.json')} or with
                  ${code('PAGEWATCH_…')} environment variables (${code('npx pagewatch config')} lists them).
                </p>
                <dl class="defs limits">
                  ${limitRows(c).map(
                    (r) =>
                      html`<div data-setting="${r.setting}">
                        <dt><code>${breakable(r.setting)}</code></dt>
                        <dd class="value">
                          ${r.value}
                          <div class="meaning">${r.meaning}</div>
                        </dd>
                      </div>`,
                  )}
                </dl>
              </section>

              <section id="errors" class="card" aria-labelledby="errors-title">
                <h2 id="errors-title">Errors</h2>
                <p>
                  Every error is JSON:
                  ${code(
                    '{"error": {"code": "…", "message": "…", "details": [{"path", "message"}]?}, ' +
                      '"requestId": "…"}',
                  )}.
                  Every response carries ${code('X-Request-Id')} (echoed if you sent one); the service log has the cause
                  under it.
                </p>
                <dl class="defs errors">
                  ${ERRORS.map(
                    ([codes, when]) =>
                      html`<div>
                        <dt>${ERROR_STATUS[codes[0]!]} ${codes.map((n, i) => html`${i ? ' or ' : ''}${code(n)}`)}</dt>
                        <dd>${when}</dd>
                      </div>`,
                  )}
                </dl>
              </section>

              ${operationSections(c, base)} ${monitorsSection(c, base)} ${referenceSection(c, guides)}
            </div>
          </div>
        </main>
      </body>
    </html> `;
  return page.text;
}
