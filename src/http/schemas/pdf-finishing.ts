// The finishing options of a PDF on the wire: what /api/pdf and the PDF tools (/api/pdf/merge, ...)
// take besides the page. Files inside options come as base64 (`data`) or, in a multipart upload, as the
// name of a part (`file`); finishingOf turns the validated options into the engine's PdfFinishing.
import { z } from 'zod';
import {
  AF_RELATIONSHIPS,
  PDFA_LEVELS,
  PRINT_PERMISSIONS,
  STAMP_POSITIONS,
  type PdfAttachment,
  type PdfFinishing,
  type PdfStamp,
} from '../../domain/pdf-spec.js';
import type { UploadedFile } from '../../domain/render-spec.js';
import { STAMP_DEFAULTS, STAMP_IMAGE_TYPES } from '../../pdf/stamp/stamp-page.js';
import { invalidRequest, type ErrorDetail } from '../../errors.js';
import { documentChars, isPageRanges } from './request-options.js';
import {
  MAX_COLOR_CHARS,
  MAX_CONTENT_TYPE_CHARS,
  MAX_METADATA_CHARS,
  MAX_NAME_CHARS,
  MAX_PAGE_RANGES_CHARS,
  MAX_PDF_PASSWORD_CHARS,
  MAX_STAMP_TEXT_CHARS,
  MAX_URL_CHARS,
} from './string-caps.js';

/** Attachments one request may add. */
export const MAX_EMBEDS = 20;
/** Extra Info dictionary keys one request may set. */
export const MAX_CUSTOM_METADATA = 50;
/** Parts a split may make (ranges) and the largest `every`. */
export const MAX_SPLIT_PAGES = 100_000;

/** Factur-X / ZUGFeRD 2.x profiles, as written to fx:ConformanceLevel. */
export const FACTURX_PROFILES = ['MINIMUM', 'BASIC WL', 'BASIC', 'EN 16931', 'EXTENDED', 'XRECHNUNG'] as const;
const IMAGE_TYPES = Object.keys(STAMP_IMAGE_TYPES) as [
  keyof typeof STAMP_IMAGE_TYPES,
  ...(keyof typeof STAMP_IMAGE_TYPES)[],
];

const pageRanges = (what: string) =>
  z
    .string()
    .max(MAX_PAGE_RANGES_CHARS)
    .refine((v) => v.trim() === '' || isPageRanges(v, true), 'page ranges such as "1-3,5" or "7-"')
    .describe(what);

/** The bytes of a file inside the options: base64, or (multipart) the name of an uploaded part. */
const fileSource = (limits: { maxBodyBytes?: number }) => ({
  data: z.base64().max(documentChars(limits)).optional().describe('The file, base64-encoded'),
  file: z.string().max(MAX_URL_CHARS).optional().describe('Multipart upload: the name of the part holding the file'),
});
const oneSource = (value: { data?: unknown; file?: unknown }, ctx: z.RefinementCtx) => {
  if ((value.data === undefined) === (value.file === undefined))
    ctx.addIssue({ code: 'custom', path: ['data'], message: 'give exactly one of data (base64) and file' });
};

const stampSchema = (limits: { maxBodyBytes?: number }, field: 'watermark' | 'stamp') => {
  const defaults = STAMP_DEFAULTS[field];
  return z
    .object({
      text: z.string().min(1).max(MAX_STAMP_TEXT_CHARS).optional(),
      image: z
        .object({ ...fileSource(limits), contentType: z.enum(IMAGE_TYPES) })
        .strict()
        .superRefine(oneSource)
        .optional()
        .describe('A PNG or JPEG image'),
      fontSize: z
        .number()
        .min(1)
        .max(500)
        .optional()
        .describe('Text: points; default 48 for a watermark, 18 for a stamp'),
      color: z.string().max(MAX_COLOR_CHARS).optional().describe('Text: a CSS colour such as "#c00" or "gray"'),
      fontFamily: z.string().max(MAX_NAME_CHARS).optional().describe('Text: a font family installed on the server'),
      width: z.number().min(1).max(14_400).optional().describe('Image: width in points (height keeps the aspect)'),
      opacity: z.number().min(0).max(1).default(defaults.opacity),
      rotation: z.number().min(-360).max(360).default(defaults.rotation).describe('Degrees, counter-clockwise'),
      position: z.enum(STAMP_POSITIONS).default(defaults.position),
      offsetX: z
        .number()
        .min(-14_400)
        .max(14_400)
        .default(defaults.offsetX)
        .describe("Points from the position's edge"),
      offsetY: z
        .number()
        .min(-14_400)
        .max(14_400)
        .default(defaults.offsetY)
        .describe("Points from the position's edge"),
      pages: pageRanges('Pages to mark, such as "1-3,5"; default every page').optional(),
    })
    .strict()
    .superRefine((value, ctx) => {
      if ((value.text === undefined) === (value.image === undefined))
        ctx.addIssue({ code: 'custom', path: ['text'], message: 'give exactly one of text and image' });
    });
};

const password = z.string().max(MAX_PDF_PASSWORD_CHARS);

/** The finishing fields, shared by /api/pdf and the tools; each applied only when given. */
export function finishingFields(limits: { maxBodyBytes?: number }) {
  const text = z.string().max(MAX_METADATA_CHARS);
  return {
    pdfa: z
      .enum(PDFA_LEVELS, { error: `PDF/A levels offered: ${PDFA_LEVELS.join(', ')}` })
      .optional()
      .describe('Make a PDF/A document (PDF/A-1b is not offered: it forbids transparency)'),
    pdfua: z.boolean().optional().describe('Make a PDF/UA-1 document; implies tagged and outline'),
    metadata: z
      .object({
        title: text.optional(),
        author: text.optional(),
        subject: text.optional(),
        keywords: text.optional(),
        creator: text.optional().describe('The application that made the original document'),
        producer: text.optional().describe('The application that made the PDF'),
        creationDate: z.iso.datetime({ offset: true }).max(64).optional().describe('ISO 8601 date-time'),
        modificationDate: z.iso.datetime({ offset: true }).max(64).optional().describe('ISO 8601 date-time'),
        language: z.string().max(70).optional().describe('BCP 47 language tag of the document, such as "de-DE"'),
        custom: z
          .record(
            z
              .string()
              .min(1)
              .max(MAX_NAME_CHARS)
              .regex(/^[A-Za-z][\w.-]*$/, 'a name of letters, digits, _ . -'),
            text,
          )
          .refine((v) => Object.keys(v).length <= MAX_CUSTOM_METADATA, `at most ${MAX_CUSTOM_METADATA} keys`)
          .optional()
          .describe('Extra document information keys'),
      })
      .strict()
      .optional(),
    embeds: z
      .array(
        z
          .object({
            name: z.string().min(1).max(MAX_NAME_CHARS).describe('The file name shown in the attachments'),
            contentType: z.string().min(1).max(MAX_CONTENT_TYPE_CHARS).describe('Media type, such as "text/csv"'),
            relationship: z.enum(AF_RELATIONSHIPS).default('Unspecified').describe('AFRelationship to the document'),
            description: text.optional(),
            ...fileSource(limits),
          })
          .strict()
          .superRefine(oneSource),
      )
      .max(MAX_EMBEDS)
      .optional()
      .describe(`Files to attach, at most ${MAX_EMBEDS}`),
    facturx: z
      .object({
        xml: z.string().max(documentChars(limits)).optional().describe('The invoice XML (UN/CEFACT CII)'),
        file: fileSource(limits).file,
        profile: z.enum(FACTURX_PROFILES).default('EN 16931'),
      })
      .strict()
      .superRefine((value, ctx) => {
        if ((value.xml === undefined) === (value.file === undefined))
          ctx.addIssue({ code: 'custom', path: ['xml'], message: 'give exactly one of xml and file' });
      })
      .optional()
      .describe('A Factur-X / ZUGFeRD e-invoice: the XML attached as factur-x.xml to a PDF/A-3b'),
    encrypt: z
      .object({
        userPassword: password.optional().describe('Needed to open the file; absent: anyone may open it'),
        ownerPassword: password.min(1).describe('Needed to change the permissions'),
        permissions: z
          .object({
            print: z.enum(PRINT_PERMISSIONS).default('full'),
            copy: z.boolean().default(true),
            modify: z.boolean().default(true),
            annotate: z.boolean().default(true),
            fillForms: z.boolean().default(true),
            assemble: z.boolean().default(true),
          })
          .strict()
          .prefault({})
          .describe('What a reader without the owner password may do; default everything'),
      })
      .strict()
      .optional()
      .describe('AES-256 encryption. The passwords are never logged, stored in clear or returned'),
    watermark: stampSchema(limits, 'watermark').optional().describe('Drawn behind the content of each page'),
    stamp: stampSchema(limits, 'stamp').optional().describe('Drawn over the content of each page'),
    split: z
      .object({
        ranges: pageRanges('One part per range, such as "1-3,4-6"').optional(),
        every: z.number().int().min(1).max(MAX_SPLIT_PAGES).optional().describe('A part every N pages'),
      })
      .strict()
      .superRefine((value, ctx) => {
        if ((value.ranges === undefined) === (value.every === undefined))
          ctx.addIssue({ code: 'custom', path: ['ranges'], message: 'give exactly one of ranges and every' });
      })
      .optional()
      .describe('Answer with a zip of parts (application/zip) instead of one PDF'),
    flatten: z.boolean().optional().describe("Make the form fields' values part of the page"),
  };
}

export const FINISHING_KEYS = [
  'pdfa',
  'pdfua',
  'metadata',
  'embeds',
  'facturx',
  'encrypt',
  'watermark',
  'stamp',
  'split',
  'flatten',
] as const;
export type FinishingKey = (typeof FINISHING_KEYS)[number];
export type FinishingWire = z.infer<z.ZodObject<ReturnType<typeof finishingFields>>>;

/** Rules across the finishing fields; each issue names the field to change. */
export function finishingRules(
  value: { pdfa?: unknown; encrypt?: unknown; facturx?: unknown; embeds?: unknown },
  ctx: z.RefinementCtx,
) {
  if (value.encrypt !== undefined && (value.pdfa !== undefined || value.facturx !== undefined))
    ctx.addIssue({
      code: 'custom',
      path: ['encrypt'],
      message: 'PDF/A (and so Factur-X) forbids encryption: leave out encrypt or pdfa/facturx',
    });
  if (value.facturx !== undefined && value.pdfa === 'PDF/A-2b')
    ctx.addIssue({
      code: 'custom',
      path: ['facturx'],
      message: 'Factur-X needs PDF/A-3b: leave out pdfa or give "PDF/A-3b"',
    });
  if (value.embeds !== undefined && value.pdfa === 'PDF/A-2b')
    ctx.addIssue({
      code: 'custom',
      path: ['embeds'],
      message: 'PDF/A-2b allows only PDF/A files as attachments: give pdfa "PDF/A-3b"',
    });
}

/** Whether a request asks for any finishing at all: without, the engine is not called. */
export const hasFinishing = (value: Record<string, unknown>) => FINISHING_KEYS.some((k) => value[k] !== undefined);

/** The metadata fields the renderer writes itself (through Chromium and pdf-lib); the rest need the engine. */
const RENDERER_METADATA = ['title', 'author', 'subject', 'keywords'];

/**
 * Splits a validated PDF request: what the renderer takes (its PdfSpec, metadata with only the renderer's
 * fields), and the finishing the engine applies after the render (undefined: nothing to do).
 */
export function splitFinishing<T extends Record<string, unknown>>(
  req: T,
): { render: T; finishing?: Partial<FinishingWire> } {
  const render: Record<string, unknown> = { ...req };
  const finishing: Record<string, unknown> = {};
  for (const key of FINISHING_KEYS) {
    if (key === 'metadata') continue;
    if (render[key] !== undefined) finishing[key] = render[key];
    delete render[key];
  }
  const metadata = req.metadata as Record<string, unknown> | undefined;
  if (metadata && Object.keys(metadata).some((k) => !RENDERER_METADATA.includes(k))) {
    finishing.metadata = metadata; // the engine writes them all, so Info and XMP agree
    render.metadata = Object.fromEntries(Object.entries(metadata).filter(([k]) => RENDERER_METADATA.includes(k)));
  }
  return { render: render as T, ...(Object.keys(finishing).length > 0 && { finishing }) };
}

/**
 * The engine's PdfFinishing from validated options: base64 decoded, `file` names looked up among the
 * uploaded parts (`files`; absent for JSON). pdfua implies tagged and outline (set on the render by the
 * route); facturx implies PDF/A-3b.
 */
export function finishingOf(wire: Partial<FinishingWire>, files?: readonly UploadedFile[]): PdfFinishing {
  const details: ErrorDetail[] = [];
  const bytesOf = (src: { data?: string; file?: string }, path: string): Buffer => {
    if (src.data !== undefined) return Buffer.from(src.data, 'base64');
    const found = files?.find((f) => f.path === src.file);
    if (!found)
      details.push({
        path: `${path}.file`,
        message: files
          ? `no uploaded part is named ${JSON.stringify(src.file)}`
          : 'file names a part of a multipart upload; in JSON give data (base64)',
      });
    return found?.bytes ?? Buffer.alloc(0);
  };
  const stampOf = (s: NonNullable<FinishingWire['stamp']>, path: string): PdfStamp => {
    const { image, ...rest } = s;
    return {
      ...rest,
      ...(image && { image: { contentType: image.contentType, bytes: bytesOf(image, `${path}.image`) } }),
    };
  };
  const out: PdfFinishing = {};
  if (wire.pdfa) out.pdfa = wire.pdfa;
  if (wire.pdfua !== undefined) out.pdfua = wire.pdfua;
  if (wire.metadata) out.metadata = wire.metadata;
  if (wire.embeds)
    out.embeds = wire.embeds.map(({ data, file, ...e }, i): PdfAttachment => ({
      ...e,
      bytes: bytesOf({ data, file }, `embeds.${i}`),
    }));
  if (wire.facturx) {
    const { xml, file, profile } = wire.facturx;
    out.facturx = { profile, xml: xml !== undefined ? Buffer.from(xml, 'utf-8') : bytesOf({ file }, 'facturx') };
    out.pdfa ??= 'PDF/A-3b';
  }
  if (wire.encrypt) out.encrypt = wire.encrypt;
  if (wire.watermark) out.watermark = stampOf(wire.watermark, 'watermark');
  if (wire.stamp) out.stamp = stampOf(wire.stamp, 'stamp');
  if (wire.split) out.split = wire.split;
  if (wire.flatten !== undefined) out.flatten = wire.flatten;
  if (details.length) throw invalidRequest(details.map((d) => `${d.path}: ${d.message}`).join('; ') + '.', details);
  return out;
}
