// GET /docs: one server-rendered page of documentation that states this service's real configuration
// (limits, queue, retry schedule...), not the defaults. Every interpolated value goes through the `html`
// tag below, which escapes it; only fragments the tag itself built are inserted as they are.
import type { Config } from '../config.js';
import { PACKAGE_VERSION } from '../version.js';
import { ERRORS, VERIFY_CRYPTO, VERIFY_STANDARDWEBHOOKS } from './docs-texts.js';
import { breakable, bytes, code, duration, hours, html, list, Markup } from './html.js';
import { siteHeader } from './site-header.js';
import { limitRows } from './docs-limits.js';

// --- the page -------------------------------------------------------------------------------------

/** Only a plain origin goes into the copy-paste commands; anything odd falls back to localhost. */
function exampleBase(baseUrl: string, config: Readonly<Config>): string {
  const plain = /^https?:\/\/[A-Za-z0-9.[\]:-]+(\/[A-Za-z0-9._~/-]*)?$/;
  return plain.test(baseUrl) ? baseUrl.replace(/\/+$/, '') : `http://localhost:${config.port || 3000}`;
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

const pre = (text: string, label: string) => html`<pre tabindex="0" aria-label="${label}"><code>${text}</code></pre>`;

export function renderDocsPage(config: Readonly<Config>, baseUrl: string): string {
  const c = config;
  const base = exampleBase(baseUrl, c);
  const anonymous = c.auth.anonymous;
  const anonBody = Math.min(c.limits.maxBodyBytes, c.limits.anonymousMaxBodyBytes);
  const keyHeader = anonymous ? '' : ' -H "Authorization: Bearer $PAGEWATCH_KEY"';
  const retries = c.webhooks.retryScheduleMs;
  const retryWords = retries.length ? `after about ${retries.map(duration).join(', ')} (each ±20\u00a0% jitter)` : 'never (the retry schedule is empty)';

  const firstPdf = `curl -X POST ${base}/api/pdf${keyHeader} -H 'Content-Type: application/json' \\
  -d '{"url": "https://example.com"}' -o page.pdf`;
  const firstPng = `curl -X POST ${base}/api/image${keyHeader} -H 'Content-Type: application/json' \\
  -d '{"html": "<h1>Hello</h1>", "fullPage": true}' -o hello.png`;
  const rawHtml = `curl -X POST ${base}/api/pdf${keyHeader} -H 'Content-Type: text/html' \\
  --data-binary @invoice.html -o invoice.pdf`;
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
# Effective on the key's next request
npx pagewatch keys revoke key_0123456789abcdef
# A new webhook secret; the old one also signs for webhooks.secretGraceHours
npx pagewatch keys rotate-secret key_0123456789abcdef`;
  const monitorCreate = `curl -X POST ${base}/api/monitors -H "Authorization: Bearer $PAGEWATCH_KEY" \\
  -H 'Content-Type: application/json' -d '{
  "name": "Pricing page", "url": "https://example.com/pricing",
  "schedule": "*/15 * * * *", "timezone": "Europe/Paris",
  "capture": {"fullPage": true, "hideSelectors": [".cookie-banner"]},
  "diff": {"ignoreSelectors": [".ad", "time"]},
  "notify": ["change", "failure"], "webhookUrl": "https://hooks.example.com/pagewatch"}'
# 201 {"id":"mon_…","nextRunAt":"…",…}

# Capture now (202), then the captures: changed, diffRatio, regions, imageUrl, diffUrl
curl -X POST ${base}/api/monitors/mon_…/run -H "Authorization: Bearer $PAGEWATCH_KEY"
curl ${base}/api/monitors/mon_…/captures -H "Authorization: Bearer $PAGEWATCH_KEY"`;
  const webhookRequest = `POST /pagewatch HTTP/1.1
Content-Type: application/json
webhook-id: msg_2f4c…
webhook-timestamp: 1795370049
webhook-signature: v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=

{"type":"job.succeeded","timestamp":"…","data":{"jobId":"job_…","kind":"pdf",
 "status":"succeeded","attempts":1,"result":{"url":"${base}/api/jobs/job_…/result",
 "contentType":"application/pdf","bytes":18311,"expiresAt":"…"},"renderMs":412,
 "pageCount":1,"finalUrl":"https://example.com/"}}`;

  const egress = c.egress;
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Docs · Pagewatch</title>
<link rel="icon" href="/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/base.css">
<link rel="stylesheet" href="/assets/docs.css">
</head>
<body>
${new Markup(siteHeader('/docs'))}
<main id="main">
<h1>Pagewatch documentation</h1>
<p class="lead">Render web pages to PDF and images over HTTP, as async jobs with signed webhooks, and watch pages for visual changes.
Every figure on this page is this service's own configuration (Pagewatch ${PACKAGE_VERSION}).
The machine-readable contract is <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>
<div class="docs-layout">
<nav class="toc card" aria-labelledby="toc-title">
<h2 id="toc-title">Contents</h2>
<ol>${SECTIONS.map(([id, title]) => html`<li><a href="#${id}">${title}</a></li>`)}</ol>
</nav>
<div class="docs-body">

<section id="quick-start" class="card" aria-labelledby="quick-start-title">
<h2 id="quick-start-title">Quick start</h2>
<h3>Install and start</h3>
${pre(`npm install && npm start   # installs (finds or installs Chromium), serves on port 3000
npm test                   # the whole test suite: real Chromium, real HTTP, real SQLite`, 'Install and start')}
<p>Node 20.19 or newer. The service starts without a browser too; <a href="/ready">/ready</a> then answers 503 and renders answer
${code('503 unavailable')} until one can be launched.</p>
<h3>Your first PDF and PNG</h3>
<p>${anonymous
    ? html`No key is needed for synchronous renders (the anonymous tier: ${c.rateLimit.anonymousPerMinute} requests a minute per IP, bodies up to ${bytes(anonBody)}).`
    : html`The anonymous tier is off on this service: every request needs a key (see <a href="#authentication">Authentication</a>).`}</p>
${pre(firstPdf, 'A URL to PDF')}
${pre(firstPng, 'HTML to PNG')}
<p>A body of ${code('Content-Type: text/html')} is the same as ${code('{"html": …}')} with every default:</p>
${pre(rawHtml, 'Raw HTML to PDF')}
<p>Every option (viewport, device, waits, cookies, paper size, margins, image format, clip…) is in
<a href="/openapi.json">the OpenAPI document</a>, with its range and default. Try them in the <a href="/">converter</a>.</p>
<h3>Async jobs and webhooks</h3>
<p>For volume, add ${code('"async": true')} (API key required). The answer is immediate: ${code('202')} with the job and its
${code('Location')}. With a ${code('webhookUrl')} the service POSTs ${code('job.succeeded')} or ${code('job.failed')} to it when the job ends.</p>
${pre(asyncFlow, 'An async job with a webhook')}
</section>

<section id="authentication" class="card" aria-labelledby="authentication-title">
<h2 id="authentication-title">Authentication</h2>
<p>API keys are made and revoked on the server with the CLI; the key and its webhook signing secret are printed once
(only a SHA-256 of the key is stored):</p>
${pre(keysCli, 'Managing keys')}
<p>Send the key as ${code('Authorization: Bearer pw_live_…')} or as ${code('X-API-Key: pw_live_…')}. A key sees only its own jobs,
monitors, captures and deliveries (another key's id answers 404). A key that is sent but unknown or revoked is always ${code('401 unauthorized')},
even where no key is needed.</p>
<h3>Anonymous tier</h3>
${anonymous
    ? html`<p>On: without a key, only synchronous ${code('POST /api/pdf')} and ${code('POST /api/image')} are allowed, with bodies up to
<strong>${bytes(anonBody)}</strong> and <strong>${c.rateLimit.anonymousPerMinute}</strong> requests a minute per client IP.
Everything else without a key is ${code('401')}. ${code('auth.anonymous: false')} turns the tier off.</p>`
    : html`<p>Off (${code('auth.anonymous: false')}): every ${code('/api/')} request needs a key, except ${code('GET /api/status')}.</p>`}
<h3>Rate limits</h3>
<p>A key may make <strong>${c.rateLimit.perKeyPerMinute}</strong> requests a minute${anonymous ? html`, an anonymous IP <strong>${c.rateLimit.anonymousPerMinute}</strong>` : ''}.
Budgets are token buckets: bursts up to the per-minute figure, refilled continuously. Responses carry ${code('RateLimit-Limit')},
${code('RateLimit-Remaining')} and ${code('RateLimit-Reset')}; past the budget, ${code('429 rate_limited')} with ${code('Retry-After')}.</p>
</section>

<section id="limits" class="card" aria-labelledby="limits-title">
<h2 id="limits-title">Limits</h2>
<p>The values this service runs with. Operators change them in ${code('config/default.json')} or with ${code('PAGEWATCH_…')} environment variables
(${code('npx pagewatch config')} lists them).</p>
<dl class="defs limits">${limitRows(c).map((r) => html`<div data-setting="${r.setting}"><dt><code>${breakable(r.setting)}</code></dt><dd class="value">${r.value}<div class="meaning">${r.meaning}</div></dd></div>`)}</dl>
</section>

<section id="errors" class="card" aria-labelledby="errors-title">
<h2 id="errors-title">Errors</h2>
<p>Every error is JSON: ${code('{"error": {"code": "…", "message": "…", "details": [{"path", "message"}]?}, "requestId": "…"}')}.
Every response carries ${code('X-Request-Id')} (echoed if you sent one); the service log has the cause under it.</p>
<dl class="defs errors">${ERRORS.map(([status, names, when]) => html`<div><dt>${status} ${names.split(' ').map((n, i) => html`${i ? ' or ' : ''}${code(n)}`)}</dt><dd>${when}</dd></div>`)}</dl>
</section>

<section id="webhooks" class="card" aria-labelledby="webhooks-title">
<h2 id="webhooks-title">Webhooks</h2>
<p>Webhooks follow the Standard Webhooks specification, signed with the owning key's secret (${code('whsec_…')}).</p>
<h3>Events</h3>
<dl class="defs events">
<div><dt>${code('job.succeeded')}</dt><dd>An async job finished; ${code('data.result.url')} is the output.<div class="meaning">To the job's ${code('webhookUrl')}.</div></dd></div>
<div><dt>${code('job.failed')}</dt><dd>An async job failed (after up to ${c.jobs.maxAttempts} tries); ${code('data.error')} says why.<div class="meaning">To the job's ${code('webhookUrl')}.</div></dd></div>
<div><dt>${code('monitor.changed')}</dt><dd>A capture differs from the baseline (confirmed), with the changed ${code('regions')}.<div class="meaning">To the monitor's ${code('webhookUrl')}, if its ${code('notify')} has ${code('"change"')}.</div></dd></div>
<div><dt>${code('capture.failed')}</dt><dd>A monitor's capture failed.<div class="meaning">To the monitor's ${code('webhookUrl')}, if its ${code('notify')} has ${code('"failure"')}.</div></dd></div>
<div><dt>${code('capture.completed')}</dt><dd>Every successful capture.<div class="meaning">To the monitor's ${code('webhookUrl')}, if its ${code('notify')} has ${code('"capture"')}.</div></dd></div>
</dl>
<h3>Request and signature</h3>
${pre(webhookRequest, 'A webhook request')}
<ul>
<li>${code('webhook-id')}: the same on every retry of one event: de-duplicate on it.</li>
<li>${code('webhook-timestamp')}: seconds, of this attempt. Refuse old ones (replays).</li>
<li>${code('webhook-signature')}: ${code('v1,')} + base64 HMAC-SHA256 of ${code('{webhook-id}.{webhook-timestamp}.{body}')}, keyed with the
base64-decoded part of the secret after ${code('whsec_')}. After ${code('keys rotate-secret')} two signatures are sent, space-separated, for
${hours(c.webhooks.secretGraceHours)}: accept either.</li>
<li>The body is ${code('{type, timestamp, data}')}; ${code('data')} is thin: ids, status, figures and absolute URLs (which need the key), never the bytes.</li>
</ul>
<h3>Delivery and retries</h3>
<ul>
<li>A ${code('2xx')} answer within <strong>${c.webhooks.timeoutMs} ms</strong> (${duration(c.webhooks.timeoutMs)}) is success. A ${code('3xx')} (redirects are not followed),
${code('4xx')}, ${code('5xx')}, a timeout or a network error is a failed attempt.</li>
<li>Failed attempts are retried ${retryWords}; then the delivery is ${code('failed')}.</li>
<li>${code('410 Gone')} stops: that delivery and every other pending one to the same URL for the key fail.</li>
<li>Delivery is at least once and survives restarts (an outbox in the same transaction as the outcome). At most ${c.webhooks.maxInFlight} are sent at once.</li>
<li>The target URL obeys the egress policy, at submission (400 on ${code('webhookUrl')}) and again at send time.</li>
<li>The log: ${code('GET /api/webhook-deliveries?jobId=&monitorId=&status=')}, one delivery with every attempt at ${code('GET /api/webhook-deliveries/{id}')},
and ${code('POST /api/webhook-deliveries/{id}/redeliver')} to send again now.</li>
</ul>
<h3>Verifying in Node</h3>
<p>With the reference implementation (${code('npm install standardwebhooks')}):</p>
${pre(VERIFY_STANDARDWEBHOOKS, 'Verifying with standardwebhooks')}
<p>Or with nothing but ${code('node:crypto')}:</p>
${pre(VERIFY_CRYPTO, 'Verifying with node:crypto')}
</section>

<section id="runtime" class="card" aria-labelledby="runtime-title">
<h2 id="runtime-title">Runtime behaviour</h2>
<h3>Timeouts</h3>
<p>A render's ${code('timeout')} (default 30000 ms, at most <strong>${c.limits.maxTimeoutMs} ms</strong>) covers the whole request, time waiting in the
queue included, so a client always has an answer within it: past it, ${code('504 render_timeout')} and the page is closed (a page that loops forever
really stops). ${code('waitForSelector')} or ${code('waitForFunction')} that never succeed are ${code('422 render_failed')}. A client that disconnects
cancels its render and frees its slot.</p>
<h3>Queueing</h3>
<p>At most <strong>${c.render.concurrency}</strong> renders run at once; up to <strong>${c.render.queueSize}</strong> more wait, first come, first served;
beyond that ${code('429 queue_full')} with a ${code('Retry-After')} estimated from recent render times. Async jobs and monitor captures use the same
render slots: the job worker keeps at most ${c.render.concurrency} of them in the line, so neither kind starves the other. Jobs live in SQLite: a job
whose process died is taken up again (up to ${c.jobs.maxAttempts} tries).</p>
<h3>Browser recycling</h3>
<p>One Chromium serves every render, with ${c.render.warmPages} warm pages reused and wiped between renders (cookies, storage, cache, history,
permissions), so nothing of one render is visible to the next. A page is replaced after ${c.render.pageMaxUses} renders; the browser is replaced
after <strong>${c.render.restartAfter}</strong> renders, in the background, without failing a request. If Chromium crashes, renders in flight answer
${code('503 unavailable')} and the next render starts a new browser. On SIGTERM, renders in flight get ${duration(c.shutdownGraceMs)} to finish.</p>
<h3>Egress policy</h3>
<p>Every request the browser makes (the document, each redirect, sub-resources, fetch/XHR, WebSockets, workers) and every webhook goes through the
service's egress policy. ${egress.allowPrivate
    ? html`On this service ${code('egress.allowPrivate')} is <strong>true</strong>: private and loopback addresses may be reached.`
    : html`Only public addresses may be reached: loopback, private, link-local (including 169.254.169.254), CGNAT, multicast and unspecified addresses,
their IPv6 forms, and names that resolve to any of them are refused.`}
Hosts always allowed here: ${list(egress.allowHosts)}; always refused: ${list(egress.denyHosts)}.
A refused top-level ${code('url')} is ${code('403 url_blocked')}; a refused sub-resource is simply not loaded. Only ${code('http')} and ${code('https')} URLs are accepted.</p>
</section>

<section id="monitors" class="card" aria-labelledby="monitors-title">
<h2 id="monitors-title">Monitors</h2>
<p>A monitor captures a page on a cron schedule (5 or 6 fields, in an IANA time zone), compares each capture with the previous successful one, and
tells its ${code('webhookUrl')} when something really changed, and where. Manage them in the <a href="/monitors">dashboard</a> or the API:</p>
${pre(monitorCreate, 'Creating a monitor')}
<ul>
<li>Pixels are compared with pixelmatch (${code('diff.threshold')} 0.1, anti-aliasing ignored); a capture has ${code('changed')} when
${code('diffRatio >= diff.minChangeRatio')} (0.001 by default). ${code('ignoreRegions')} and ${code('ignoreSelectors')} are left out of the count.</li>
<li>With ${code('diff.confirm')} (on by default) a change is captured once more and reported only if it is still there.</li>
<li>The newest ${code('retention.keep')} captures are kept (default 100, at most <strong>${c.monitors.maxRetention}</strong>); a key may have
<strong>${c.monitors.maxPerKey}</strong> monitors.</li>
<li>One capture per monitor at a time: a tick that finds the previous one pending is skipped and counted. ${code('POST /api/monitors/{id}/run')} captures now.</li>
</ul>
</section>

<section id="reference" class="card" aria-labelledby="reference-title">
<h2 id="reference-title">Reference</h2>
<ul class="links">
<li><a href="/openapi.json">/openapi.json</a>: the OpenAPI 3.1 document, generated from the schemas that validate requests, with this service's limits.</li>
<li><a href="/status">/status</a>: what the service is doing now (the same figures as <a href="/api/status">/api/status</a>).</li>
<li><a href="/metrics">/metrics</a>: Prometheus metrics.</li>
<li><a href="/health">/health</a> (the process runs) and <a href="/ready">/ready</a> (the database and the browser are usable).</li>
</ul>
</section>
</div>
</div>
</main>
</body>
</html>
`;
  return page.text;
}
