// The docs page's monitors section, with this service's limits and an example that names its address.
import type { Config } from '../config.js';
import { code, html, pre, type Markup } from './html.js';

export function monitorsSection(c: Readonly<Config>, base: string): Markup {
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
  return html`<section id="monitors" class="card" aria-labelledby="monitors-title">
    <h2 id="monitors-title">Monitors</h2>
    <p>
      A monitor captures a page on a cron schedule (5 or 6 fields, in an IANA time zone), compares each capture with the
      previous successful one, and tells its ${code('webhookUrl')} when something really changed, and where. Manage them
      in the <a href="/monitors">dashboard</a> or the API:
    </p>
    ${pre(monitorCreate, 'Creating a monitor')}
    <ul>
      <li>
        A change is decided per changed region, never per page: differing pixels are sorted (strong, faint, anti-aliased
        — counted only beside a real change — or a lone speck), grouped into regions, and a region holding at least 6
        counted pixels, 4 of them strong, is a change. A price changed at 16 px is found the same way on a tall
        full-page capture. ${code('diff.minChangeRatio')} (default 0: off) adds a page-level gate;
        ${code('diff.includeAA: true')} is the strict setting. ${code('ignoreRegions')} and ${code('ignoreSelectors')}
        are left out of the count. Animated images show their first frame.
      </li>
      <li>
        Each region lists up to 5 ${code('elements')} behind it (selector, tag, text before and after), and each capture
        its ${code('textChanges')} (added, removed or changed text blocks with a word diff, at most 50,
        ${code('textChangesTotal')} counts all). ${code('diff.mode')}: ${code('"visual"')} (default: regions decide),
        ${code('"text"')} (only a text change counts) or ${code('"both"')}. ${code('diff.textSelector')} limits the text
        read to one element; ${code('diff.ignoreText')} (up to 20 regular expressions in RE2 syntax, run in linear time;
        no lookaround or backreferences) blanks matches such as dates first.
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
        ${code('waitForSelector')}, ${code('waitForTimeout')}, ${code('goto')}) run after the page loads and before the
        capture, within its timeout; a ${code('fill')} with ${code('secret: true')} is write-only and encrypted, and is
        typed only into a page of its origin (its ${code('origin')}, else the last ${code('goto')}'s, else the
        ${code('url')}'s); a ${code('goto')} obeys the egress policy; a failing step fails the capture naming the step's
        index.
      </li>
      <li>
        With ${code('diff.confirm')} (on by default) a change is captured once more and reported only if it is still
        there.
      </li>
      <li>
        In the dashboard, each capture states its verdict and why: changed (what crossed the threshold), below the
        threshold (the pixels that differ against ${code('minChangeRatio')} in pixels and per cent: not reported), not
        confirmed, not counted in this ${code('diff.mode')}, unchanged, a baseline, or failed (the error). A capture
        with regions opens with region 1 selected: the region before and after, side by side and zoomed, with the slider
        and the image moved onto it; each region is a row to select.
      </li>
      <li>
        The newest ${code('retention.keep')} captures are kept (default 100, at most
        <strong>${c.monitors.maxRetention}</strong>); a key may have <strong>${c.monitors.maxPerKey}</strong> monitors.
      </li>
      <li>
        One capture per monitor at a time: a tick that finds the previous one pending is skipped and counted.
        ${code('POST /api/monitors/{id}/run')} captures now.
      </li>
      <li>
        Secrets in ${code('capture')} — header and cookie values, the ${code('httpCredentials')} password, the values of
        ${code('fill')} steps marked ${code('secret')} — are write-only and encrypted at rest: answers show
        ${code('"••••"')}, and a ${code('"••••"')} sent back (or a field left out of a PATCH) keeps the stored value —
        unless the PATCH moves the ${code('url')} to another origin, widens ${code('headersScope')} to ${code('"all"')},
        or adds or changes ${code('js')}, ${code('css')} or ${code('waitForFunction')} (code that could read cookies):
        then each secret that could go somewhere new must be sent again (${code('400')} names the fields). A header name
        matches a stored one in any case; a cookie's flags are part of what identifies it.
      </li>
      <li>
        The <a href="/monitors">dashboard</a>'s form edits every option: those it does not show at once are under
        <em>Show every option</em>, and a line above it always lists the ones set. An ignore region can be drawn on the
        monitor's latest capture (in the capture's own pixels) or typed. A schedule is read out in words as it is typed,
        with its time zone; the service still judges it on save.
      </li>
    </ul>
  </section>`;
}
