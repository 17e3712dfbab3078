// The docs page's webhooks and runtime behaviour sections, stated with this service's configured values.
import type { Config } from '../config.js';
import { eventList } from './docs-events.js';
import { VERIFY_CRYPTO, VERIFY_STANDARDWEBHOOKS } from './docs-texts.js';
import { code, duration, hours, html, list, pre, type Markup } from './html.js';

export function operationSections(c: Readonly<Config>, base: string): Markup {
  const retries = c.webhooks.retryScheduleMs;
  const retryWords = retries.length
    ? `after about ${retries.map(duration).join(', ')} (each ±20\u00a0% jitter)`
    : 'never (the retry schedule is empty)';
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
        Webhooks follow the Standard Webhooks specification, signed with the owning key's webhook secret
        (${code('whsec_…')}). The secret is printed once, with the key, by ${code('npx pagewatch keys create')};
        ${code('npx pagewatch keys rotate-secret <key id>')} replaces it (see below). To try a receiver, send it a
        <a href="#event-monitor-test">${code('monitor.test')}</a> event.
      </p>
      ${eventList(c, base)}
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
          send again now. ${code('POST /api/monitors/{id}/test-webhook')} queues a ${code('monitor.test')} event
          (${code('202')} with its delivery). The dashboard shows a monitor's deliveries in its history, with both
          buttons.
        </li>
      </ul>
      <h3 id="verifying">Verifying in Node</h3>
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
        (cookies, storage, cache, history, permissions), so nothing of one render is visible to the next. Every page is
        unloaded (navigated to ${code('about:blank')}) before its wipe, so every render starts on a new document. A page
        whose browser context keeps what no wipe clears (credentials from a URL, an HSTS or NEL header) is replaced
        instead. A page is replaced after ${c.render.pageMaxUses} renders; the browser is replaced after
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
    </section>`;
}
