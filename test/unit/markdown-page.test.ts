// markdownPage (src/render/markdown/markdown-page.ts): markers, the default page, and the schema rules and
// cap of the `markdown` field. The rendering itself is proved in test/integration/markdown.test.ts.
import { describe, expect, it } from 'vitest';
import {
  markdownPage,
  MarkdownTemplateError,
  markersOf,
  templateProblem,
} from '../../src/render/markdown/markdown-page.js';
import { renderMarkdownPage } from '../../src/render/markdown/markdown-in-thread.js';
import { pdfRequestSchema, imageRequestSchema } from '../../src/http/schemas/render.js';

const md = (markdown: string, name = 'markdown') => ({ name, markdown });

describe('markers', () => {
  it("accept Gotenberg's spelling, Go's tight spacing and a nameless marker", () => {
    expect(markersOf('{{ toHTML "a.md" }} {{toHTML "b.md"}} {{ toHTML }} {{toHTML}}')).toEqual([
      'a.md',
      'b.md',
      '',
      '',
    ]);
    expect(markersOf('{{ toHtml }} {{ toHTML a.md }} {toHTML}')).toEqual([]);
  });

  it('replace each marker once, never recursively, with $ patterns kept as text', () => {
    const page = markdownPage(
      [md('A $& B $1 C $$ D $` E {{ toHTML }}')],
      '<div>{{ toHTML }}|{{ toHTML "markdown" }}</div>',
    );
    expect(page).toBe(
      '<div><p>A $&amp; B $1 C $$ D $` E {{ toHTML }}</p>\n|<p>A $&amp; B $1 C $$ D $` E {{ toHTML }}</p>\n</div>',
    );
  });

  it('place several named sources', () => {
    const page = markdownPage(
      [md('# One', 'one.md'), md('# Two', 'two.md')],
      '{{ toHTML "two.md" }}{{ toHTML "one.md" }}',
    );
    expect(page).toBe('<h1>Two</h1>\n<h1>One</h1>\n');
  });

  it('say what is wrong with a template', () => {
    expect(templateProblem('<p>none</p>', [md('x')])).toMatch(/no \{\{ toHTML \}\} marker: put \{\{ toHTML \}\}/);
    expect(templateProblem('{{ toHTML "b.md" }}', [md('x', 'a.md')])).toMatch(
      /"b\.md" }} names no Markdown source; the sources are "a\.md"/,
    );
    expect(templateProblem('{{ toHTML }}', [md('x', 'a.md'), md('y', 'b.md')])).toMatch(/exactly one Markdown source/);
    expect(() => markdownPage([md('x')], '<p>none</p>')).toThrow(MarkdownTemplateError);
  });

  it('stay linear on hostile templates (1 MiB of near-markers in well under a second)', () => {
    const hostile = '{{ toHTML '.repeat(50_000) + '{{' + ' '.repeat(500_000) + 'toHTML' + ' '.repeat(500_000);
    const started = performance.now();
    expect(markersOf(hostile)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('the default page', () => {
  it('is a whole document: doctype, charset, lang, title from the first heading, the style', () => {
    const page = markdownPage([md('Intro\n\n# Fish & "Chips"\n\n## Later')], undefined, 'pt-BR');
    expect(page).toMatch(/^<!doctype html>\n<html lang="pt-BR">\n<head>\n<meta charset="utf-8">/);
    expect(page).toContain('<title>Fish &amp; &quot;Chips&quot;</title>');
    expect(page).toContain('<style>');
    expect(page).toContain('@media print');
    expect(markdownPage([md('no heading')])).not.toContain('<title>');
    expect(markdownPage([md('x')])).toMatch(/<html>/); // no lang without a locale
  });

  it('renders tables, code blocks and raw HTML', () => {
    const page = markdownPage([
      md('| a | b |\n|---|--:|\n| 1 | 2 |\n\n```js\nlet x = "<y>";\n```\n\n<aside>raw</aside>'),
    ]);
    expect(page).toContain('<th>a</th>');
    expect(page).toContain('<td style="text-align:right">2</td>');
    expect(page).toContain('<pre><code class="language-js">let x = &quot;&lt;y&gt;&quot;;\n</code></pre>');
    expect(page).toContain('<aside>raw</aside>');
  });

  it('is the same whether converted in place or in a thread', async () => {
    const sources = [md('# T\n\n| a |\n|---|\n| 1 |\n\n' + 'word '.repeat(2000))];
    const inPlace = await renderMarkdownPage(sources, undefined, 'en');
    expect(await renderMarkdownPage(sources, undefined, 'en', { inPlaceChars: 0 })).toBe(inPlace);
    await expect(renderMarkdownPage(sources, '<p>none</p>', undefined, { inPlaceChars: 0 })).rejects.toThrow(
      MarkdownTemplateError,
    );
  });
});

describe('the markdown field', () => {
  const limits = { maxFullPageHeight: 16_384, maxImagePixels: 50_000_000, maxTimeoutMs: 120_000, maxBodyBytes: 1000 };
  for (const [name, schema] of [
    ['pdf', pdfRequestSchema(limits)],
    ['image', imageRequestSchema(limits)],
  ] as const) {
    it(`${name}: capped like html (documentChars): ${limits.maxBodyBytes} characters pass, one more does not`, () => {
      expect(schema.safeParse({ markdown: 'x'.repeat(1000) }).success).toBe(true);
      const over = schema.safeParse({ markdown: 'x'.repeat(1001) });
      expect(over.success).toBe(false);
      expect(over.error?.issues.map((i) => i.path.join('.'))).toEqual(['markdown']);
    });

    it(`${name}: one of url, html, markdown; html only as markdown's template`, () => {
      const paths = (body: unknown) => {
        const r = schema.safeParse(body);
        return r.success ? [] : r.error.issues.map((i) => i.path.join('.'));
      };
      expect(paths({ markdown: '' })).toEqual([]);
      expect(paths({ markdown: '# x', html: '<main>{{ toHTML }}</main>' })).toEqual([]);
      expect(paths({ markdown: '# x', html: '<main></main>' })).toEqual(['html']);
      expect(paths({ markdown: '# x', url: 'https://example.com/' })).toEqual(['markdown']);
      expect(paths({ markdown: '# x', baseUrl: 'https://example.com/' })).toEqual([]);
      expect(paths({ markdown: '# x', httpCredentials: { username: 'a', password: 'b' } })).toEqual([
        'httpCredentials',
      ]);
    });
  }
});
