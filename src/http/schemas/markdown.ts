// The `markdown` field of a render request: Markdown made into the page (src/render/markdown), either the
// default page or the caller's `html` with a {{ toHTML }} marker where it goes. The route turns it into
// `html` before anything else sees the request (src/http/markdown-request.ts), so jobs, the anonymous tier
// and the renderer deal with HTML only.
import { z } from 'zod';
import { documentChars } from './request-options.js';

/** The name the JSON field's Markdown goes by in a marker: {{ toHTML "markdown" }} (or {{ toHTML }}). */
export const MARKDOWN_SOURCE = 'markdown';

export const markdownField = (limits: { maxBodyBytes?: number }) =>
  z
    .string()
    .max(documentChars(limits))
    .optional()
    .describe(
      'Markdown (CommonMark with tables and strikethrough; raw HTML kept) rendered as a clean default page, ' +
        'or, with html, placed into html where it has {{ toHTML }} (or {{ toHTML "markdown" }}). Not with url.',
    );
