// Markdown to the HTML of the /docs page, with markdown-it. Raw HTML in the Markdown is off: the page needs
// none, and what it adds to plain Markdown is done here on the parsed tokens — heading ids (GitHub's, so a
// link to a section works on GitHub and on /docs alike), labelled code blocks a keyboard can scroll, links
// on the service's own paths, and the settings table's data-setting rows. The page is split into its
// introduction (above the first `##`) and one section per `##`.
import MarkdownIt from 'markdown-it';
import type Token from 'markdown-it/lib/token.mjs';

/** Paths of this service that a code span naming one links to (on GitHub they stay code). */
const SITE_PATHS = new Set(['/', '/monitors', '/status', '/docs', '/openapi.json', '/api/status', '/metrics']);
SITE_PATHS.add('/health').add('/ready');

export interface DocSection {
  /** The section's anchor (GitHub's for its heading); its `##` heading has `<id>-title`. */
  id: string;
  title: string;
  html: string;
}

export interface RenderedDoc {
  intro: string;
  sections: DocSection[];
  /** The text of every heading, of any level. */
  headings: string[];
}

function markdown(): MarkdownIt {
  const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
  md.core.ruler.push('docs_attributes', (state) => {
    decorate(state.tokens);
  });
  md.renderer.rules.fence = (tokens, i) => {
    const token = tokens[i]!;
    const label = md.utils.escapeHtml(String(token.meta ?? ''));
    return `<pre tabindex="0" aria-label="${label}"><code>${md.utils.escapeHtml(token.content)}</code></pre>\n`;
  };
  md.renderer.rules.code_inline = (tokens, i) => {
    const text = tokens[i]!.content;
    const code = `<code>${md.utils.escapeHtml(text)}</code>`;
    return SITE_PATHS.has(text) ? `<a href="${text}">${code}</a>` : code;
  };
  return md;
}

const headingText = (inline: Token | undefined) =>
  (inline?.children ?? []).map((t) => (t.type === 'text' || t.type === 'code_inline' ? t.content : '')).join('');

/** Heading ids, code block labels, the first paragraph's `lead`, and the settings table's attributes. */
function decorate(tokens: Token[]): void {
  const seen = new Map<string, number>();
  let heading = '';
  let unlabelled: Token[] = [];
  const nameBlocks = () => {
    unlabelled.forEach((fence, n) => {
      fence.meta = unlabelled.length > 1 ? `${heading}, example ${n + 1}` : heading;
    });
    unlabelled = [];
  };
  let lead = false;
  tokens.forEach((token, i) => {
    if (token.type === 'heading_open') {
      nameBlocks();
      heading = headingText(tokens[i + 1]);
      token.attrSet('id', githubSlug(heading, seen));
      lead = token.tag === 'h1';
    } else if (token.type === 'paragraph_open' && lead) {
      token.attrJoin('class', 'lead');
      lead = false;
    } else if (token.type === 'fence') {
      // ```sh A URL to PDF: the words after the language name the block; otherwise its heading does.
      const label = token.info.trim().split(/\s+/).slice(1).join(' ');
      if (label) token.meta = label;
      else unlabelled.push(token);
    } else if (token.type === 'table_open') {
      settingsTable(tokens, i);
    }
  });
  nameBlocks();
}

/**
 * A table whose first column is "Setting" lists settings by their path in code: each row says which
 * (`data-setting`), and its second cell is the value.
 */
function settingsTable(tokens: Token[], open: number): void {
  const firstCell = tokens.slice(open).find((t) => t.type === 'inline');
  if (headingText(firstCell) !== 'Setting') return;
  tokens[open]!.attrJoin('class', 'settings');
  for (let i = open; tokens[i]!.type !== 'table_close'; i++) {
    if (tokens[i]!.type !== 'tr_open' || tokens[i + 1]!.type !== 'td_open') continue;
    const setting = tokens[i + 2]!.children?.find((t) => t.type === 'code_inline')?.content;
    if (setting) tokens[i]!.attrSet('data-setting', setting);
    const valueCell = tokens.findIndex((t, j) => j > i + 1 && t.type === 'td_open');
    tokens[valueCell]!.attrJoin('class', 'value');
  }
}

/** The page: its introduction and its sections, each rendered on its own. */
export function renderDoc(source: string): RenderedDoc {
  const md = markdown();
  const env = {};
  const tokens = md.parse(source, env);
  const starts = tokens.flatMap((t, i) => (t.type === 'heading_open' && t.tag === 'h2' ? [i] : []));
  const render = (from: number, to?: number) => md.renderer.render(tokens.slice(from, to), md.options, env);
  const sections = starts.map((start, n) => {
    const id = tokens[start]!.attrGet('id')!;
    tokens[start]!.attrSet('id', `${id}-title`);
    return { id, title: headingText(tokens[start + 1]), html: render(start, starts[n + 1]) };
  });
  const headings = tokens.flatMap((t, i) => (t.type === 'heading_open' ? [headingText(tokens[i + 1])] : []));
  return { intro: render(0, starts[0]), sections, headings };
}

/** The text of a file's section, from below its heading (by its anchor) to the next heading of any level. */
export function markdownSection(source: string, anchor: string, file: string): string {
  const tokens = new MarkdownIt().parse(source, {});
  const seen = new Map<string, number>();
  const headings = tokens.flatMap((t, i) => (t.type === 'heading_open' ? [i] : []));
  const at = headings.findIndex((i) => githubSlug(headingText(tokens[i + 1]), seen) === anchor);
  if (at < 0) throw new Error(`docs: ${file} has no heading #${anchor}`);
  const lines = source.split('\n');
  const next = headings[at + 1];
  return lines
    .slice(tokens[headings[at]!]!.map![1], next === undefined ? undefined : tokens[next]!.map![0])
    .join('\n')
    .trim();
}

/** GitHub's anchor for a heading: code marks dropped, lower case, punctuation dropped, repeats numbered. */
export function githubSlug(text: string, seen: Map<string, number>): string {
  const base = text
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
  const n = seen.get(base) ?? 0;
  seen.set(base, n + 1);
  return n ? `${base}-${n}` : base;
}
