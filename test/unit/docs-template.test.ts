// The placeholders of the Markdown behind /docs (docs/development.md, "The /docs page"), through the whole
// pipeline that serves the page: a value is escaped and never becomes Markdown, conditions choose text,
// includes take another file's section, and every mistake stops the page from being built at all.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeSettings, loadConfig } from '../../src/config-load.js';
import { ERROR_STATUS } from '../../src/errors.js';
import { DOCS_DIR, readDocsFiles } from '../../src/web/docs-files.js';
import { docsPage, PAGE_SOURCE } from '../../src/web/docs-page.js';

type Overrides = NonNullable<Parameters<typeof loadConfig>[0]>['overrides'];

/** The page made from `overview` (and other files by name), for a configuration. */
function page(
  overview: string,
  overrides: Overrides = {},
  others: Record<string, string> = {},
  base = 'http://a.test',
) {
  const files = Object.entries({ [PAGE_SOURCE]: overview, ...others }).map(([name, text]) => ({
    name,
    body: Buffer.from(text),
  }));
  const html = docsPage(loadConfig({ env: {}, overrides }), files)(base);
  return html.slice(html.indexOf('<main'), html.indexOf('</main>'));
}

describe('values', () => {
  it('are escaped, and Markdown or HTML in a value stays text, in prose and in code', () => {
    const hostile = '*<b>x</b>* [a](javascript:alert(1)) `c`';
    const main = page(
      '# T\n\n## S\n\nAllowed: {{ egress.allowHosts }}.\n\n```sh\necho {{ egress.allowHosts }}\n```\n',
      { egress: { allowHosts: [hostile] } },
    );
    const escaped = '*&lt;b&gt;x&lt;/b&gt;* [a](javascript:alert(1)) `c`';
    expect(main).toContain(`Allowed: ${escaped}.`);
    expect(main).toContain(`echo ${escaped}`);
    expect(main).not.toMatch(/<b>|<em>|<a href="javascript/);
  });

  it("stay escaped through Liquid's own filters and tags", () => {
    const main = page(
      "# T\n\n## S\n\n{{ egress.allowHosts | join: ' ' | append: '<i>' }}; {% echo egress.allowHosts | first %}\n",
      { egress: { allowHosts: ['*<b>x</b>*', 'y'] } },
    );
    expect(main).toContain('<p>*&lt;b&gt;x&lt;/b&gt;* y&lt;i&gt;; *&lt;b&gt;x&lt;/b&gt;*</p>');
  });

  it('are the configured ones, formatted on request', () => {
    const main = page(
      '# T\n\n## S\n\n{{ limits.maxTimeoutMs }} ms, {{ limits.maxTimeoutMs | duration }}, {{ limits.maxBodyBytes | bytes }}, ' +
        "{{ webhooks.retryScheduleMs | duration }}, {{ webhooks.retryScheduleMs | count: 'retry', 'retries' }}, " +
        "{{ monitors.minIntervalSeconds | duration: 'seconds' }}, {{ webhooks.secretGraceHours | hours }}, " +
        '{{ egress.denyHosts | codes }}, {{ baseUrl }}\n',
      {
        limits: { maxTimeoutMs: 90_000, maxBodyBytes: 3 * 1024 * 1024 },
        webhooks: { retryScheduleMs: [1000], secretGraceHours: 1 },
        monitors: { minIntervalSeconds: 300 },
        egress: { denyHosts: ['a', 'b'] },
      },
    );
    expect(main).toContain(
      '90000 ms, 1.5 min, 3 MiB, 1 s, 1 retry, 5 min, 1 hour, <code>a</code>, <code>b</code>, http://a.test',
    );
  });

  it('the base URL is the one each request came in at', () => {
    const build = docsPage(loadConfig({ env: {} }), [
      { name: PAGE_SOURCE, body: Buffer.from('# T\n\n## S\n\n`curl {{ baseUrl }}/api`\n') },
    ]);
    expect(build('http://one.test')).toContain('<code>curl http://one.test/api</code>');
    expect(build('https://two.test/')).toContain('<code>curl https://two.test/api</code>');
  });
});

describe('conditions', () => {
  const source = [
    '# T\n\n## S\n',
    '{% if auth.anonymous %}',
    'Open{% unless auth.publicOperations %}, operations closed{% endunless %}.',
    '{% else %}',
    'Closed.',
    '{% endif %}',
    '',
    "Sandbox {% if render.sandbox == 'off' %}off{% else %}not off{% endif %}; " +
      'hosts {% if egress.allowHosts != empty %}some{% else %}none{% endif %}.',
  ].join('\n');

  it('choose the text for the configuration, nested ones too', () => {
    expect(page(source)).toContain('<p>Open.</p>');
    expect(page(source)).toContain('Sandbox not off; hosts none.');
    expect(page(source, { auth: { publicOperations: false } })).toContain('<p>Open, operations closed.</p>');
    const closed = page(source, {
      auth: { anonymous: false },
      render: { sandbox: 'off' },
      egress: { allowHosts: ['x'] },
    });
    expect(closed).toContain('<p>Closed.</p>');
    expect(closed).not.toContain('Open');
    expect(closed).toContain('Sandbox off; hosts some.');
  });
});

describe('includes', () => {
  it("take another file's section, from below its heading to the next heading", () => {
    const other =
      '# Other\n\n## The `part` here\n\nIncluded, **bold**: {{ render.queueSize }}.\n\n### Next\n\nNot included.\n';
    const main = page("# T\n\n## S\n\n{% include 'other.md#the-part-here' %}\n", {}, { 'other.md': other });
    expect(main).toContain('<p>Included, <strong>bold</strong>: 100.</p>');
    expect(main).not.toContain('Not included');
  });
});

describe('mistakes stop the page from being built', () => {
  it.each([
    ['an unknown setting', '{{ limits.noSuchLimit }}', /undefined variable: limits.noSuchLimit/],
    ['a format on a non-number', '{{ egress.allowPrivate | bytes }}', /takes a number/],
    ['a placeholder that is not one', '{{ nope', /not closed/],
    ['two else', '{% if auth.anonymous %}a{% else %}b{% else %}c{% endif %}', /duplicated else/],
    ['a condition on the base URL', '{% if baseUrl %}x{% endif %}', /per request/],
    ['a value in a link', '[x]({{ baseUrl }}/a)', /inside a link or heading/],
    ['a value in a heading', '### At {{ render.queueSize }}', /inside a link or heading/],
    ['an unknown event', '{% example job.nope %}', /no event type job.nope/],
    ['a block inside a paragraph', 'See {% example job.failed %} here', /block placeholder inside a paragraph/],
    ['an include of a missing section', "{% include 'overview.md#nowhere' %}", /no heading #nowhere/],
    ['the raw filter, which would not escape', '{{ egress.allowHosts | raw }}', /undefined filter: raw/],
    ['a filter on the base URL', '{{ baseUrl | upcase }}', /per request/],
    ['an unknown filter', '{{ limits.maxBodyBytes | megabytes }}', /undefined filter: megabytes/],
    ['an unknown tag', '{% chart %}', /tag "chart" not found/],
  ])('%s', (_what, line, error) => {
    expect(() => page(`# T\n\n## S\n\n${line}\n`)).toThrow(error);
  });
});

describe('docs/overview.md, the /docs page', () => {
  const files = readDocsFiles();
  const main = docsPage(loadConfig({ env: {} }), files.pages)('http://localhost:3000');

  it('names real settings in its table of limits', () => {
    const settings = new Set(describeSettings().map((s) => s.path));
    const rows = [...main.matchAll(/data-setting="([^"]+)"/g)].map((m) => m[1]!);
    expect(rows.length).toBeGreaterThan(20);
    for (const row of rows) expect(settings, row).toContain(row);
  });

  it("docs/rendering.md's error table, which it shows, gives every code with its status from errors.ts", () => {
    const rendering = readFileSync(join(DOCS_DIR, 'rendering.md'), 'utf8');
    const stated = new Map<string, number>();
    for (const [, status, codes] of rendering.matchAll(/^\| (\d{3}) \| (`[a-z_]+`(?: or `[a-z_]+`)*) \|/gm))
      for (const [, code] of codes!.matchAll(/`([a-z_]+)`/g)) stated.set(code!, Number(status));
    expect(Object.fromEntries(stated)).toEqual(ERROR_STATUS);
    expect(main).toContain('<code>payload_too_large</code>');
  });
});
