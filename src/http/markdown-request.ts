// A render request's `markdown` made into its `html`, right after validation: from here on the request is
// like any HTML request (a stored job holds the HTML, the renderer never sees Markdown), and the page is
// under the same egress and script rules as any HTML.
import { invalidRequest } from '../errors.js';
import { INDEX_HTML, type Upload } from './middleware/multipart.js';
import { markersOf } from '../render/markdown/markdown-page.js';
import { renderMarkdownPage } from '../render/markdown/markdown-in-thread.js';
import { MarkdownTemplateError } from '../render/markdown/markdown-page.js';
import { MARKDOWN_SOURCE } from './schemas/markdown.js';

/** `req` with `markdown` converted into `html` (the default page, or its html template filled in). */
export async function withMarkdownAsHtml<T extends { markdown?: string; html?: string; locale?: string }>(
  req: T,
): Promise<Omit<T, 'markdown'>> {
  if (req.markdown === undefined) return req;
  const { markdown, ...rest } = req;
  try {
    return { ...rest, html: await renderMarkdownPage([{ name: MARKDOWN_SOURCE, markdown }], req.html, req.locale) };
  } catch (err) {
    // The schema checked the template already; this only repeats its verdict.
    if (err instanceof MarkdownTemplateError)
      throw invalidRequest(`The request has 1 invalid field: ${err.message}`, [{ path: 'html', message: err.message }]);
    throw err;
  }
}

/**
 * An upload whose page is made of its Markdown files: without index.html, the default page with every .md
 * file in the order sent; with an index.html that has {{ toHTML "name.md" }} markers, that page with the
 * files' HTML at them. The page becomes the upload's index.html (what the browser loads). An index.html
 * without a marker is the page as it is, and .md files are then plain files it may link to.
 */
export async function withMarkdownPage(upload: Upload): Promise<Upload & { html: string }> {
  const template = upload.html;
  if (template !== undefined && (upload.markdown.length === 0 || markersOf(template).length === 0))
    return { ...upload, html: template };
  const sources = upload.markdown.map((f) => ({ name: f.path, markdown: f.bytes.toString('utf-8') }));
  const locale = typeof upload.options.locale === 'string' ? upload.options.locale : undefined;
  let html: string;
  try {
    html = await renderMarkdownPage(sources, template, locale);
  } catch (err) {
    if (err instanceof MarkdownTemplateError)
      throw invalidRequest(`The upload's ${INDEX_HTML} does not fit its Markdown files: ${err.message}`, [
        { path: INDEX_HTML, message: err.message },
      ]);
    throw err;
  }
  const page = { path: INDEX_HTML, contentType: 'text/html; charset=utf-8', bytes: Buffer.from(html, 'utf-8') };
  return { ...upload, html, files: [page, ...upload.files.filter((f) => f.path !== INDEX_HTML)] };
}
