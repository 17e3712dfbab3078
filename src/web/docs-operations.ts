// The second half of the docs page: webhooks, runtime behaviour, monitors and the reference links,
// stated with this service's configured values.
import type { Config } from '../config.js';
import { VERIFY_CRYPTO, VERIFY_STANDARDWEBHOOKS } from './docs-texts.js';
import { code, duration, hours, html, list, pre, type Markup } from './html.js';

export function operationSections(c: Readonly<Config>, base: string): Markup {
  const retries = c.webhooks.retryScheduleMs;
  const retryWords = retries.length
    ? `after about ${retries.map(duration).join(', ')} (each ±20\u00a0% jitter)`
    : 'never (the retry schedule is empty)';
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
  return html`<section id="webhooks" class="card" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      <p>
        Webhooks follow the Standard Webhooks specification, signed with the owning key's secret (${code('whsec_…')}).
      </p>
      <h3>Events</h3>
      <dl class="defs events">
        <div>
          <dt>${code('job.succeeded')}</dt>
          <dd>
            An async job finished; ${code('data.result.url')} is the output.
            <div class="meaning">To the job's ${code('webhookUrl')}.</div>
          </dd>
        </div>
        <div>
          <dt>${code('job.failed')}</dt>
          <dd>
            An async job failed (after up to ${c.jobs.maxAttempts} tries); ${code('data.error')} says why.
            <div class="meaning">To the job's ${code('webhookUrl')}.</div>
          </dd>
        </div>
        <div>
          <dt>${code('monitor.changed')}</dt>
          <dd>
            A capture differs from the baseline (confirmed) and its ${code('notifyWhen')} rules, if any, are met: the
            changed ${code('regions')} with their elements, a one-line ${code('summary')}
            (${code('Price: $24.99 → $19.99')}), the first 10 ${code('textChanges')} and the ${code('conditions')}.
            <div class="meaning">
              To the monitor's ${code('webhookUrl')}, if its ${code('notify')} has ${code('"change"')}.
            </div>
          </dd>
        </div>
        <div>
          <dt>${code('capture.failed')}</dt>
          <dd>
            A monitor's capture failed.
            <div class="meaning">
              To the monitor's ${code('webhookUrl')}, if its ${code('notify')} has ${code('"failure"')}.
            </div>
          </dd>
        </div>
        <div>
          <dt>${code('capture.completed')}</dt>
          <dd>
            Every successful capture.
            <div class="meaning">
              To the monitor's ${code('webhookUrl')}, if its ${code('notify')} has ${code('"capture"')}.
            </div>
          </dd>
        </div>
      </dl>
      <h3>Request and signature</h3>
      ${pre(webhookRequest, 'A webhook request')}
      <ul>
        <li>${code('webhook-id')}: the same on every retry of one event: de-duplicate on it.</li>
        <li>${code('webhook-timestamp')}: seconds, of this attempt. Refuse old ones (replays).</li>
        <li>
          ${code('webhook-signature')}: ${code('v1,')} + base64 HMAC-SHA256 of
          ${code('{webhook-id}.{webhook-timestamp}.{body}')}, keyed with the base64-decoded part of the secret after
          ${code('whsec_')}. After ${code('keys rotate-secret')} two signatures are sent, space-separated, for
          ${hours(c.webhooks.secretGraceHours)}: accept either.
        </li>
        <li>
          The body is ${code('{type, timestamp, data}')}; ${code('data')} is thin: ids, status, figures and absolute
          URLs (which need the key), never the bytes.
        </li>
      </ul>
      <h3>Delivery and retries</h3>
      <ul>
        <li>
          A ${code('2xx')} answer within <strong>${c.webhooks.timeoutMs} ms</strong> (${duration(c.webhooks.timeoutMs)})
          is success. A ${code('3xx')} (redirects are not followed), ${code('4xx')}, ${code('5xx')}, a timeout or a
          network error is a failed attempt.
        </li>
        <li>Failed attempts are retried ${retryWords}; then the delivery is ${code('failed')}.</li>
        <li>${code('410 Gone')} stops: that delivery and every other pending one to the same URL for the key fail.</li>
        <li>
          Delivery is at least once and survives restarts (an outbox in the same transaction as the outcome). At most
          ${c.webhooks.maxInFlight} are sent at once.
        </li>
        <li>
          The target URL obeys the egress policy, at submission (400 on ${code('webhookUrl')}) and again at send time.
        </li>
        <li>
          The log: ${code('GET /api/webhook-deliveries?jobId=&monitorId=&status=')}, one delivery with every attempt at
          ${code('GET /api/webhook-deliveries/{id}')}, and ${code('POST /api/webhook-deliveries/{id}/redeliver')} to
          send again now.
        </li>
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
      <p>
        A render's ${code('timeout')} (default 30000 ms, at most <strong>${c.limits.maxTimeoutMs} ms</strong>) covers
        the whole request, time waiting in the queue included, so a client always has an answer within it: past it,
        ${code('504 render_timeout')} and the page is closed (a page that loops forever really stops).
        ${code('waitForSelector')} or ${code('waitForFunction')} that never succeed are ${code('422 render_failed')}. A
        client that disconnects cancels its render and frees its slot.
      </p>
      <h3>Queueing</h3>
      <p>
        At most <strong>${c.render.concurrency}</strong> renders run at once; up to
        <strong>${c.render.queueSize}</strong> more wait, first come, first served; beyond that
        ${code('429 queue_full')} with a ${code('Retry-After')} estimated from recent render times. Async jobs and
        monitor captures use the same render slots: the job worker keeps at most ${c.render.concurrency} of them in the
        line, so neither kind starves the other. Jobs live in SQLite: a job whose process died is taken up again (up to
        ${c.jobs.maxAttempts} tries).
      </p>
      <h3>Browser recycling</h3>
      <p>
        One Chromium serves every render, with ${c.render.warmPages} warm pages reused and wiped between renders
        (cookies, storage, cache, history, permissions), so nothing of one render is visible to the next. A page is
        replaced after ${c.render.pageMaxUses} renders; the browser is replaced after
        <strong>${c.render.restartAfter}</strong> renders, in the background, without failing a request. If Chromium
        crashes, renders in flight answer ${code('503 unavailable')} and the next render starts a new browser. On
        SIGTERM, renders in flight get ${duration(c.shutdownGraceMs)} to finish.
      </p>
      <h3>Egress policy</h3>
      <p>
        Every request the browser makes (the document, each redirect, sub-resources, fetch/XHR, WebSockets, workers) and
        every webhook goes through the service's egress policy.
        ${
          egress.allowPrivate
            ? html`On this service ${code('egress.allowPrivate')} is <strong>true</strong>: private and loopback
                addresses may be reached.`
            : html`Only public addresses may be reached: loopback, private, link-local (including 169.254.169.254),
              CGNAT, multicast and unspecified addresses, their IPv6 forms, and names that resolve to any of them are
              refused.`
        }
        Hosts always allowed here: ${list(egress.allowHosts)}; always refused: ${list(egress.denyHosts)}. A refused
        top-level ${code('url')} is ${code('403 url_blocked')}; a refused sub-resource is simply not loaded. Only
        ${code('http')} and ${code('https')} URLs are accepted. The browser reaches the network only through the
        service's egress proxy, which serves no other process.
      </p>
      <h3>Chromium's sandbox</h3>
      <p>
        ${code('render.sandbox')} is ${code(c.render.sandbox)} here:
        ${
          c.render.sandbox === 'off'
            ? 'Chromium runs without its sandbox.'
            : c.render.sandbox === 'on'
              ? 'Chromium always runs with its sandbox (it cannot start as root).'
              : 'Chromium runs with its sandbox unless the service runs as root.'
        } <a href="/ready">/ready</a> says whether it is on, and why a browser cannot start when the sandbox is what
        stops it.
      </p>
    </section>

    <section id="monitors" class="card" aria-labelledby="monitors-title">
      <h2 id="monitors-title">Monitors</h2>
      <p>
        A monitor captures a page on a cron schedule (5 or 6 fields, in an IANA time zone), compares each capture with
        the previous successful one, and tells its ${code('webhookUrl')} when something really changed, and where.
        Manage them in the <a href="/monitors">dashboard</a> or the API:
      </p>
      ${pre(monitorCreate, 'Creating a monitor')}
      <ul>
        <li>
          A change is decided per changed region, never per page: differing pixels are sorted (strong, faint,
          anti-aliased — counted only beside a real change — or a lone speck), grouped into regions, and a region
          holding at least 6 counted pixels, 4 of them strong, is a change. A price changed at 16 px is found the same
          way on a tall full-page capture. ${code('diff.minChangeRatio')} (default 0: off) adds a page-level gate;
          ${code('diff.includeAA: true')} is the strict setting. ${code('ignoreRegions')} and ${code('ignoreSelectors')}
          are left out of the count. Animated images show their first frame.
        </li>
        <li>
          Each region lists up to 5 ${code('elements')} behind it (selector, tag, text before and after), and each
          capture its ${code('textChanges')} (added, removed or changed text blocks with a word diff, at most 50,
          ${code('textChangesTotal')} counts all). ${code('diff.mode')}: ${code('"visual"')} (default: regions decide),
          ${code('"text"')} (only a text change counts) or ${code('"both"')}. ${code('diff.textSelector')} limits the
          text read to one element; ${code('diff.ignoreText')} (up to 20 regular expressions, checked for catastrophic
          backtracking) blanks matches such as dates first.
        </li>
        <li>
          ${code('notifyWhen')} (up to 20 rules: a ${code('selector')} with one of ${code('textContains')},
          ${code('textNotContains')}, ${code('numberBelow')}, ${code('numberAbove')}, ${code('numberChanged')},
          ${code('appears')}, ${code('disappears')}): a change is told only when every rule is true and one newly so;
          numbers are read with the element's locale (${code('1.299,00 €')} → 1299). Each capture records
          ${code('conditions')}, ${code('conditionErrors')} and ${code('conditionsMet')}.
        </li>
        <li>
          ${code('capture.steps')} (up to 20: ${code('click')}, ${code('fill')}, ${code('press')}, ${code('select')},
          ${code('waitForSelector')}, ${code('waitForTimeout')}, ${code('goto')}) run after the page loads and before
          the capture, within its timeout; a ${code('fill')} with ${code('secret: true')} is write-only and encrypted; a
          ${code('goto')} obeys the egress policy; a failing step fails the capture naming the step's index.
        </li>
        <li>
          With ${code('diff.confirm')} (on by default) a change is captured once more and reported only if it is still
          there.
        </li>
        <li>
          The newest ${code('retention.keep')} captures are kept (default 100, at most
          <strong>${c.monitors.maxRetention}</strong>); a key may have
          <strong>${c.monitors.maxPerKey}</strong> monitors.
        </li>
        <li>
          One capture per monitor at a time: a tick that finds the previous one pending is skipped and counted.
          ${code('POST /api/monitors/{id}/run')} captures now.
        </li>
        <li>
          Secrets in ${code('capture')} — header and cookie values, the ${code('httpCredentials')} password, the values
          of ${code('fill')} steps marked ${code('secret')} — are write-only and encrypted at rest: answers show
          ${code('"••••"')}, and a ${code('"••••"')} sent back (or a field left out of a PATCH) keeps the stored value —
          unless the PATCH moves the ${code('url')} to another origin, widens ${code('headersScope')} to
          ${code('"all"')}, or adds or changes ${code('js')}, ${code('css')} or ${code('waitForFunction')} (code that
          could read cookies): then each secret that could go somewhere new must be sent again (${code('400')} names the
          fields). A header name matches a stored one in any case; a cookie's flags are part of what identifies it.
        </li>
      </ul>
    </section>

    <section id="reference" class="card" aria-labelledby="reference-title">
      <h2 id="reference-title">Reference</h2>
      <ul class="links">
        <li>
          <a href="/openapi.json">/openapi.json</a>: the OpenAPI 3.1 document, generated from the schemas that validate
          requests, with this service's limits.
        </li>
        <li>
          <a href="/status">/status</a>: what the service is doing now (the same figures as
          <a href="/api/status">/api/status</a>).
        </li>
        <li>
          <a href="/metrics">/metrics</a>: Prometheus
          metrics.${c.auth.publicOperations ? '' : html` Here ${code('/api/status')} and ${code('/metrics')} need an API key (${code('auth.publicOperations')} is false); Prometheus sends it with ${code('authorization: {credentials: <key>}')}.`}
        </li>
        <li>
          <a href="/health">/health</a> (the process runs) and <a href="/ready">/ready</a> (the database and the browser
          are usable, and whether Chromium's sandbox is on).
        </li>
      </ul>
    </section>`;
}
