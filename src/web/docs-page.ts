// GET /docs: docs/overview.md rendered, stating this service's real configuration (limits, queue, retry
// schedule...), not the defaults. The Markdown's placeholders (src/web/docs-template.ts) are filled from
// the configuration; every value is escaped.
import { anonymousBodyLimit, type Config } from '../config.js';
import { trimTrailingSlashes } from '../domain/trim.js';
import { PACKAGE_VERSION } from '../version.js';
import { exampleBlock } from './docs-events.js';
import { markdownSection, renderDoc } from './docs-markdown.js';
import { assertMarkersInText, expandTemplate, fillSlots, type Expanded } from './docs-template.js';
import { readDocsFiles, type DocPage } from './docs-files.js';
import { html, Markup } from './html.js';
import { siteHeader } from './site-header.js';

/** The file the page is made from. */
export const PAGE_SOURCE = 'overview.md';

/** A reference file the page links to. */
export interface DocLink {
  path: string;
  title: string;
}

/** Only a plain origin goes into the copy-paste commands; anything odd falls back to localhost. */
function exampleBase(baseUrl: string, config: Readonly<Config>): string {
  const plain = /^https?:\/\/[A-Za-z0-9.[\]:-]+(\/[A-Za-z0-9._~/-]*)?$/;
  return plain.test(baseUrl) ? trimTrailingSlashes(baseUrl) : `http://localhost:${config.port || 3000}`;
}

/** The values a placeholder can name: the settings, and the page's own. */
function pageValues(config: Readonly<Config>, guides: readonly DocLink[]): Record<string, unknown> {
  // The anonymous body limit in force: a key's limit caps it.
  const limits = { ...config.limits, anonymousMaxBodyBytes: anonymousBodyLimit(config.limits) };
  // Credentials never reach a page, even through a docs file that names them by mistake.
  const email = { ...config.email, smtp: { ...config.email.smtp, password: undefined } };
  const database = { ...config.database, url: undefined };
  const tracing = { ...config.tracing, endpoint: undefined, headers: undefined };
  return { ...config, secrets: undefined, email, database, tracing, limits, version: PACKAGE_VERSION, guides };
}

/**
 * Builds the page once for a configuration (and the reference files it links); the returned function
 * fills in the address of each request. `pages` are the files of docs/, the page's source among them.
 */
export function docsPage(
  config: Readonly<Config>,
  pages: readonly Pick<DocPage, 'name' | 'body'>[],
  guides: readonly DocLink[] = [],
): (baseUrl: string) => string {
  const read = (file: string) => {
    const page = pages.find((p) => p.name === file);
    if (!page) throw new Error(`docs: no docs/${file}`);
    return page.body.toString('utf8');
  };
  const expanded: Expanded = expandTemplate(read(PAGE_SOURCE), {
    values: pageValues(config, guides),
    requestNames: ['baseUrl'],
    blocks: {
      example: (type, request) => exampleBlock(type, request.baseUrl!),
      guides: () =>
        html`<ul class="links" aria-label="Reference files">
          ${guides.map((g) => html`<li><a href="${g.path}">${g.title}</a></li>`)}
        </ul>`,
    },
    read,
    section: markdownSection,
  });
  const doc = renderDoc(expanded.markdown);
  // Filled once now, so a misplaced placeholder or an unknown event stops the service at start, not a reader.
  assertMarkersInText(doc, expanded);
  for (const part of [doc.intro, ...doc.sections.map((s) => s.html)])
    fillSlots(part, expanded, { baseUrl: exampleBase('', config) });

  return (baseUrl) => {
    const request = { baseUrl: exampleBase(baseUrl, config) };
    const fill = (part: string) => new Markup(fillSlots(part, expanded, request));
    return html`<!doctype html>
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
            ${fill(doc.intro)}
            <div class="docs-layout">
              <nav class="toc card" aria-labelledby="toc-title">
                <h2 id="toc-title">Contents</h2>
                <ol>
                  ${doc.sections.map((s) => html`<li><a href="#${s.id}">${s.title}</a></li>`)}
                </ol>
              </nav>
              <div class="docs-body">
                ${doc.sections.map(
                  (s) =>
                    html`<section id="${s.id}" class="card" aria-labelledby="${s.id}-title">${fill(s.html)}</section>`,
                )}
              </div>
            </div>
          </main>
        </body>
      </html> `.text;
  };
}

/** The page for one request; `guides` are the reference files (docs/*.md) it links, in order. */
export function renderDocsPage(config: Readonly<Config>, baseUrl: string, guides: readonly DocLink[] = []): string {
  return docsPage(config, readDocsFiles().pages, guides)(baseUrl);
}
