// The PDF tools' requests (/api/pdf/merge, /split, /convert, /metadata, /encrypt, /stamp, /flatten): the
// input PDFs (JSON: `files` with base64 data; multipart: the file parts) and the finishing options that
// make sense for the tool. One schema per tool, so each lists exactly what it takes.
import { z } from 'zod';
import type { PdfTool } from '../../jobs/pdf-work.js';
import { asyncOptions, documentChars } from './request-options.js';
import { finishingFields, finishingRules, FINISHING_KEYS, type FinishingKey } from './pdf-finishing.js';
import { MAX_NAME_CHARS, MAX_PDF_PASSWORD_CHARS, MAX_URL_CHARS } from './string-caps.js';

export interface PdfToolLimits {
  maxBodyBytes?: number;
  /** pdf.maxFiles: input PDFs one call may take. */
  pdfMaxFiles: number;
}

interface ToolRule {
  summary: string;
  /** The finishing options the tool takes. */
  options: readonly FinishingKey[];
  /** At least one of these must be given. */
  needs?: readonly FinishingKey[];
  /** Input PDFs: at least, at most (undefined: pdf.maxFiles). */
  minFiles: number;
  maxFiles?: number;
}

export const PDF_TOOL_RULES: Record<PdfTool, ToolRule> = {
  merge: {
    summary: 'Join PDFs in the order given, optionally finished',
    options: FINISHING_KEYS.filter((k) => k !== 'split'),
    minFiles: 2,
  },
  split: {
    summary: 'Cut a PDF into parts (a zip)',
    options: ['split', 'metadata', 'encrypt', 'watermark', 'stamp', 'flatten'],
    needs: ['split'],
    minFiles: 1,
    maxFiles: 1,
  },
  convert: {
    summary: 'Make a PDF into PDF/A or PDF/UA (or a Factur-X e-invoice)',
    options: ['pdfa', 'pdfua', 'metadata', 'embeds', 'facturx'],
    needs: ['pdfa', 'pdfua', 'facturx'],
    minFiles: 1,
    maxFiles: 1,
  },
  metadata: {
    summary: "Read a PDF's metadata (JSON), or write it when metadata is given",
    options: ['metadata'],
    minFiles: 1,
    maxFiles: 1,
  },
  encrypt: {
    summary: 'Encrypt a PDF (AES-256) with passwords and permissions',
    options: ['encrypt', 'metadata'],
    needs: ['encrypt'],
    minFiles: 1,
    maxFiles: 1,
  },
  stamp: {
    summary: 'Put a watermark and/or a stamp on the pages of a PDF',
    options: ['watermark', 'stamp', 'metadata', 'flatten'],
    needs: ['watermark', 'stamp'],
    minFiles: 1,
    maxFiles: 1,
  },
  flatten: {
    summary: "Make a PDF's form field values part of its pages",
    options: ['metadata'],
    minFiles: 1,
    maxFiles: 1,
  },
};

/** The request schema of one tool. `files` is the JSON way of sending the PDFs; an upload sends parts. */
export function pdfToolSchema(tool: PdfTool, limits: PdfToolLimits) {
  const rule = PDF_TOOL_RULES[tool];
  const fields = finishingFields(limits);
  const picked = Object.fromEntries(rule.options.map((k) => [k, fields[k]])) as Partial<typeof fields>;
  const maxFiles = rule.maxFiles ?? limits.pdfMaxFiles;
  return z
    .object({
      files: z
        .array(
          z
            .object({
              data: z.base64().max(documentChars(limits)).describe('The PDF, base64-encoded'),
              name: z.string().min(1).max(MAX_NAME_CHARS).optional().describe('Names the file in errors'),
              password: z.string().max(MAX_PDF_PASSWORD_CHARS).optional().describe('Its password, if encrypted'),
            })
            .strict(),
        )
        .max(maxFiles)
        .optional()
        .describe(`JSON: the input PDFs, in order (${rule.minFiles} to ${maxFiles})`),
      passwords: z
        .record(z.string().max(MAX_URL_CHARS), z.string().max(MAX_PDF_PASSWORD_CHARS))
        .refine((v) => Object.keys(v).length <= maxFiles, `at most ${maxFiles} passwords`)
        .optional()
        .describe('Multipart: the passwords of encrypted input parts, by part name'),
      ...picked,
      filename: z.string().min(1).max(MAX_NAME_CHARS).optional().describe('Used in Content-Disposition'),
      ...asyncOptions(),
    })
    .strict()
    .superRefine(
      (value, ctx) => {
        finishingRules(value, ctx);
        const given = value as Record<string, unknown>;
        if (rule.needs && !rule.needs.some((k) => given[k] !== undefined))
          ctx.addIssue({
            code: 'custom',
            path: [rule.needs[0]!],
            message: `${tool} needs ${rule.needs.join(' or ')}`,
          });
        if (value.webhookUrl !== undefined && value.async !== true)
          ctx.addIssue({
            code: 'custom',
            path: ['webhookUrl'],
            message: 'webhookUrl applies only to async requests ("async": true)',
          });
      },
      { when: () => true },
    );
}

export type PdfToolRequest = z.infer<ReturnType<typeof pdfToolSchema>>;
