// Markdown to the HTML document a render loads: either a clean default page (readable type, tables, code
// blocks, print-friendly) or the caller's own HTML with each `{{ toHTML "name.md" }}` marker (Gotenberg's
// syntax) replaced by that source's HTML. The result is plain HTML, rendered like any other: raw HTML in the
// Markdown is kept (markdown-it `html: true`), so its scripts run only with javaScriptEnabled and every
// request it makes goes through the egress policy, exactly as in the `html` field.
import MarkdownIt from 'markdown-it';
import type Token from 'markdown-it/lib/token.mjs';

export interface MarkdownSource {
  /** What a marker calls it: a file's name ("notes.md"), or "markdown" for the JSON field. */
  name: string;
  markdown: string;
}

/** A template whose markers do not fit the sources: the caller's to fix (400 in HTTP). */
export class MarkdownTemplateError extends Error {}

/**
 * `{{ toHTML "name" }}`, or `{{ toHTML }}` naming the only source. Go's template spacing (`{{toHTML "a"}}`)
 * is accepted. No quantified piece can match what its neighbour does, so a match attempt is linear.
 */
const MARKER = /\{\{ *toHTML(?: +"([^"{}\n]*)")? *\}\}/g;

/** What the caller is told to write where the Markdown goes. */
export const MARKER_HINT = 'put {{ toHTML }} (or {{ toHTML "markdown" }}) in html where the Markdown goes';

function converter(): MarkdownIt {
  // Tables and strikethrough are in markdown-it's default preset; raw HTML is the caller's, like `html`.
  return new MarkdownIt({ html: true, linkify: false, typographer: false });
}

/** The names the markers of `template` ask for ('' for a nameless marker). */
export function markersOf(template: string): string[] {
  return [...template.matchAll(MARKER)].map((m) => m[1] ?? '');
}

/**
 * Why `template` cannot take `sources`, or undefined when it can: every marker must name a source (a nameless
 * one needs exactly one source), and there must be at least one marker. Sources no marker names are left out,
 * as Gotenberg does.
 */
export function templateProblem(template: string, sources: readonly { name: string }[]): string | undefined {
  const markers = markersOf(template);
  if (markers.length === 0) return `html holds no {{ toHTML }} marker: ${MARKER_HINT}`;
  const names = new Set(sources.map((s) => s.name));
  for (const name of markers) {
    if (name === '' && sources.length !== 1)
      return `{{ toHTML }} without a name needs exactly one Markdown source; name one, e.g. {{ toHTML "${sources[0]?.name ?? 'file.md'}" }}`;
    if (name !== '' && !names.has(name))
      return `{{ toHTML "${name}" }} names no Markdown source; the sources are ${[...names].map((n) => `"${n}"`).join(', ')}`;
  }
  return undefined;
}

/**
 * The HTML document for `sources`: placed into `template` at its markers, or (without one) the default page
 * with the sources one after another. `lang` (a BCP 47 locale) becomes the default page's lang attribute.
 * Throws MarkdownTemplateError when the template's markers do not fit (see templateProblem).
 */
export function markdownPage(sources: readonly MarkdownSource[], template?: string, lang?: string): string {
  const md = converter();
  if (template !== undefined) {
    const problem = templateProblem(template, sources);
    if (problem) throw new MarkdownTemplateError(problem);
    const rendered = new Map<string, string>();
    const htmlOf = (name: string) => {
      let html = rendered.get(name);
      if (html === undefined) {
        const source = name === '' ? sources[0]! : sources.find((s) => s.name === name)!;
        html = md.render(source.markdown);
        rendered.set(name, html);
      }
      return html;
    };
    // One pass with a function: the inserted HTML is never scanned for markers again (no recursion), and
    // `$&`, `$1`… in it are text, not replacement patterns.
    return template.replace(MARKER, (_marker, name: string | undefined) => htmlOf(name ?? ''));
  }
  let title = '';
  const body = sources
    .map((source) => {
      const env = {};
      const tokens = md.parse(source.markdown, env);
      title ||= firstHeading(tokens);
      return md.renderer.render(tokens, md.options, env);
    })
    .join('\n');
  const esc = md.utils.escapeHtml;
  return (
    `<!doctype html>\n<html${lang ? ` lang="${esc(lang)}"` : ''}>\n<head>\n<meta charset="utf-8">\n` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">\n` +
    (title ? `<title>${esc(title)}</title>\n` : '') +
    `<style>${DEFAULT_CSS}</style>\n</head>\n<body>\n<main class="markdown-body">\n${body}</main>\n</body>\n</html>\n`
  );
}

/** The text of the first heading (the PDF's title comes from <title>), or ''. */
function firstHeading(tokens: Token[]): string {
  const at = tokens.findIndex((t) => t.type === 'heading_open');
  if (at < 0) return '';
  return (tokens[at + 1]?.children ?? [])
    .map((t) => (t.type === 'text' || t.type === 'code_inline' ? t.content : ''))
    .join('')
    .trim();
}

/**
 * The default page's style: one readable column, system fonts, tables with rules, code blocks that wrap
 * rather than run off the paper, and in print no page break right after a heading or inside a row or a
 * short block. No @page rule: the request's paper size and margins stay in charge.
 */
const DEFAULT_CSS = `
:root { color-scheme: light dark; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; color: #1f2328; background: #fff;
  font: 16px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Liberation Sans", Arial, sans-serif; }
main { max-width: 46rem; margin: 0 auto; padding: 2rem 1.5rem; overflow-wrap: break-word; }
h1, h2, h3, h4, h5, h6 { line-height: 1.25; margin: 1.6em 0 0.6em; font-weight: 600; }
h1 { font-size: 2em; padding-bottom: 0.3em; border-bottom: 1px solid #d1d9e0; }
h2 { font-size: 1.5em; padding-bottom: 0.3em; border-bottom: 1px solid #d1d9e0; }
h3 { font-size: 1.25em; } h4 { font-size: 1em; } h5 { font-size: 0.875em; } h6 { font-size: 0.85em; color: #59636e; }
main > :first-child { margin-top: 0; }
p, ul, ol, dl, table, pre, blockquote { margin: 0 0 1em; }
ul, ol { padding-left: 2em; }
li + li { margin-top: 0.25em; }
a { color: #0969da; }
img, svg, video { max-width: 100%; height: auto; }
hr { border: 0; border-top: 1px solid #d1d9e0; margin: 1.5em 0; }
blockquote { padding: 0 1em; color: #59636e; border-left: 0.25em solid #d1d9e0; }
code, kbd, pre, samp { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 0.875em; }
:not(pre) > code { padding: 0.15em 0.35em; border-radius: 4px; background: #eff1f3; }
pre { padding: 1em; border-radius: 6px; background: #f6f8fa; line-height: 1.45; white-space: pre-wrap; overflow-wrap: anywhere; }
table { border-collapse: collapse; display: block; max-width: 100%; overflow-x: auto; }
th, td { padding: 0.4em 0.8em; border: 1px solid #d1d9e0; text-align: left; vertical-align: top; }
th { font-weight: 600; background: #f6f8fa; }
tr:nth-child(2n) td { background: #f9fafb; }
@media (prefers-color-scheme: dark) and screen {
  body { color: #e6edf3; background: #0d1117; }
  a { color: #4493f8; }
  h1, h2, hr, th, td, blockquote { border-color: #3d444d; }
  blockquote, h6 { color: #9198a1; }
  :not(pre) > code { background: #2a313c; } pre, th { background: #161b22; } tr:nth-child(2n) td { background: #11161d; }
}
@media print {
  main { max-width: none; padding: 0; }
  table { display: table; }
  h1, h2, h3, h4, h5, h6 { break-after: avoid; }
  tr, img, blockquote, pre { break-inside: avoid; }
  a { color: inherit; }
}
`;
