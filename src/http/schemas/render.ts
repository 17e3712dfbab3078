// One schema per render endpoint. They validate requests and (later) generate the OpenAPI document,
// so a field's range, default and description are written exactly once. What they produce is the
// domain's render spec (src/domain/render-spec.ts) plus the fields that say how to answer.
// The field groups they share with the monitor schemas are in request-options.ts.
import { z } from 'zod';
import { PAPER_FORMATS, type ImageSpec, type PdfSpec } from '../../domain/render-spec.js';
import { imageSizeRules } from './image-size.js';
import {
  documentChars,
  imageOptions,
  isPageRanges,
  oneCaptureMode,
  oneMainStatusRule,
  pageOptions,
  type SchemaLimits,
} from './request-options.js';
import { MAX_CSS_LENGTH_CHARS, MAX_PAGE_RANGES_CHARS } from './string-caps.js';
import { MARKDOWN_SOURCE, markdownField } from './markdown.js';
import { finishingFields, finishingRules } from './pdf-finishing.js';
import { templateProblem } from '../../render/markdown/markdown-page.js';

// Linear: the spaces before a unit and those after it are matched by different pieces only when a unit
// stands between them (two adjacent \s* made "1" + spaces + "x" quadratic); the cap bounds it anyway.
const cssLength = z.union([
  z
    .string()
    .max(MAX_CSS_LENGTH_CHARS)
    .regex(/^\s*\d+(?:\.\d+)?\s*(?:(?:px|in|cm|mm)\s*)?$/, 'a CSS length such as "10mm", "1in", "96px"'),
  z.number().min(0),
]);

/**
 * Rules that span fields; each adds a detail naming the field to fix. They run even when some field
 * failed its own check (so one response lists every problem), hence the defensive reads.
 */
function crossFieldRules(
  value: {
    url?: unknown;
    html?: unknown;
    markdown?: unknown;
    baseUrl?: unknown;
    cookies?: unknown;
    async?: unknown;
    webhookUrl?: unknown;
    headers?: unknown;
    headersScope?: unknown;
    httpCredentials?: unknown;
    failOnHttpError?: unknown;
    failOnHttpStatusCodes?: unknown;
  },
  ctx: z.RefinementCtx,
) {
  oneMainStatusRule(value, ctx);
  if (value.webhookUrl !== undefined && value.async !== true) {
    ctx.addIssue({
      code: 'custom',
      path: ['webhookUrl'],
      message: 'webhookUrl applies only to async requests ("async": true)',
    });
  }
  sourceRules(value, ctx);
  if (value.baseUrl !== undefined && value.url !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: 'baseUrl applies only to html and markdown' });
  }
  const pageUrl = value.url ?? value.baseUrl;
  const document = value.html !== undefined || value.markdown !== undefined;
  // Secrets are bound to the target's origin; html without baseUrl has none to bind them to.
  if (document && value.url === undefined && value.baseUrl === undefined) {
    if (value.httpCredentials !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['httpCredentials'],
        message: "httpCredentials go only to the target's origin: give baseUrl with html",
      });
    }
    const hasHeaders =
      value.headers !== null && typeof value.headers === 'object' && Object.keys(value.headers).length > 0;
    if (hasHeaders && value.headersScope !== 'all') {
      ctx.addIssue({
        code: 'custom',
        path: ['headers'],
        message: 'headers go only to the target\'s origin: give baseUrl with html, or headersScope "all"',
      });
    }
  }
  if (!Array.isArray(value.cookies)) return;
  value.cookies.forEach((c: { url?: unknown; domain?: unknown } | null, i) => {
    if (c && typeof c === 'object' && !c.url && !c.domain && !pageUrl) {
      ctx.addIssue({
        code: 'custom',
        path: ['cookies', i, 'domain'],
        message: 'a cookie needs url or domain when rendering html without baseUrl',
      });
    }
  });
}

/**
 * Where the page comes from: exactly one of url, html and markdown, except that html may come with markdown
 * as its template, holding the {{ toHTML }} marker where the Markdown goes.
 */
function sourceRules(value: { url?: unknown; html?: unknown; markdown?: unknown }, ctx: z.RefinementCtx): void {
  if (value.markdown !== undefined && value.url !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['markdown'],
      message: 'markdown makes the page itself: give url, or markdown (with html as its template), not both',
    });
  } else if (value.markdown !== undefined) {
    if (typeof value.html === 'string') {
      const problem = templateProblem(value.html, [{ name: MARKDOWN_SOURCE }]);
      if (problem) ctx.addIssue({ code: 'custom', path: ['html'], message: problem });
    }
  } else if ((value.url === undefined) === (value.html === undefined)) {
    ctx.addIssue({ code: 'custom', path: ['url'], message: 'give exactly one of url, html or markdown' });
  }
}

export function imageRequestSchema(limits: SchemaLimits) {
  const sizeRules = imageSizeRules(limits);
  return z
    .object({
      ...pageOptions(limits),
      markdown: markdownField(limits),
      ...imageOptions(),
    })
    .strict()
    .superRefine(
      (value, ctx) => {
        crossFieldRules(value, ctx);
        if (value.quality !== undefined && value.format === 'png') {
          ctx.addIssue({ code: 'custom', path: ['quality'], message: 'quality applies to jpeg and webp only' });
        }
        oneCaptureMode(value, ctx);
        sizeRules(value, ctx);
      },
      { when: () => true },
    );
}

export function pdfRequestSchema(limits: SchemaLimits) {
  return z
    .object({
      ...pageOptions(limits),
      markdown: markdownField(limits),
      format: z.enum(PAPER_FORMATS).optional().describe('Paper size; default A4 unless width/height are given'),
      width: cssLength.optional().describe('Paper width, CSS units'),
      height: cssLength.optional().describe('Paper height, CSS units'),
      landscape: z.boolean().default(false),
      margin: z
        .object({
          top: cssLength.optional(),
          right: cssLength.optional(),
          bottom: cssLength.optional(),
          left: cssLength.optional(),
        })
        .strict()
        .optional()
        .describe('Default 10mm each'),
      scale: z.number().min(0.1).max(2).default(1),
      printBackground: z.boolean().default(true),
      preferCSSPageSize: z.boolean().default(false),
      pageRanges: z.string().max(MAX_PAGE_RANGES_CHARS).refine(isPageRanges, 'page ranges such as "1-3,5"').optional(),
      headerTemplate: z.string().max(documentChars(limits)).optional(),
      footerTemplate: z.string().max(documentChars(limits)).optional(),
      tagged: z.boolean().default(true),
      outline: z.boolean().default(false),
      singlePage: z
        .boolean()
        .default(false)
        .describe(
          'One page as tall as the content, as wide as format (its long side with landscape) or width; ' +
            'not with height, pageRanges or preferCSSPageSize',
        ),
      omitBackground: z
        .boolean()
        .default(false)
        .describe("The page's default background transparent instead of white; needs printBackground"),
      ...finishingFields(limits),
    })
    .strict()
    .superRefine(
      (value, ctx) => {
        crossFieldRules(value, ctx);
        finishingRules(value, ctx);
        if (value.pdfua && value.tagged === false)
          ctx.addIssue({ code: 'custom', path: ['tagged'], message: 'pdfua needs a tagged PDF: leave out tagged' });
        if (value.singlePage) singlePageRules(value, ctx);
        else if ((value.width === undefined) !== (value.height === undefined)) {
          ctx.addIssue({
            code: 'custom',
            path: [value.width === undefined ? 'width' : 'height'],
            message: 'give both width and height',
          });
        }
        if (value.omitBackground && value.printBackground === false) {
          ctx.addIssue({
            code: 'custom',
            path: ['omitBackground'],
            message: 'omitBackground needs printBackground: without it no background is printed at all',
          });
        }
        if (value.format !== undefined && value.width !== undefined) {
          ctx.addIssue({ code: 'custom', path: ['format'], message: 'give format or width/height, not both' });
        }
      },
      { when: () => true },
    );
}

/**
 * singlePage sets the page's height from the content: a height, page ranges (there is one page) or the CSS
 * page size would each contradict it. The width still comes from format or width.
 */
function singlePageRules(
  value: { height?: unknown; pageRanges?: unknown; preferCSSPageSize?: unknown },
  ctx: z.RefinementCtx,
): void {
  const clash = (field: string, why: string) =>
    ctx.addIssue({ code: 'custom', path: [field], message: `${field} cannot be combined with singlePage: ${why}` });
  if (value.height !== undefined) clash('height', 'the page is as tall as the content; give width alone');
  if (value.pageRanges !== undefined) clash('pageRanges', 'there is only one page');
  if (value.preferCSSPageSize === true) clash('preferCSSPageSize', 'the page size comes from the content');
}

/** Compiles only when the wire type `T` is a `Spec`: the schema cannot drift from the domain type. */
type Producing<T extends Spec, Spec> = T;

/** A validated image request: the render spec plus how to answer (response, async, webhookUrl, filename). */
export type ImageRequest = Producing<z.infer<ReturnType<typeof imageRequestSchema>>, ImageSpec>;
export type PdfRequest = Producing<z.infer<ReturnType<typeof pdfRequestSchema>>, PdfSpec>;
export type PageRequest = ImageRequest | PdfRequest;
