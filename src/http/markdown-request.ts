// A render request's `markdown` made into its `html`, right after validation: from here on the request is
// like any HTML request (a stored job holds the HTML, the renderer never sees Markdown), and the page is
// under the same egress and script rules as any HTML.
import { invalidRequest } from '../errors.js';
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
