// What the rest of the service asks of the PDF engine. Routes, jobs and the render path depend on this
// interface; the implementation runs every step off the event loop (qpdf in a child process, pdf-lib in a
// worker), each under a time and memory bound of its own (settings `pdf.*`).
import type { PdfFinishing } from '../domain/pdf-spec.js';

/** What the engine hands back: one PDF, or (split) a zip of the parts. */
export type PdfProduct =
  | { kind: 'pdf'; bytes: Buffer; pageCount: number }
  | { kind: 'zip'; bytes: Buffer; parts: { name: string; pageCount: number }[] };

/** A PDF made elsewhere, as a tool receives it. `path` names where it came from, for errors (a part name). */
export interface PdfInput {
  bytes: Buffer;
  path: string;
  /** For an encrypted input: its user or owner password. */
  password?: string;
}

/** The document information of a PDF, as `/api/pdf/metadata` reads it. */
export interface PdfMetadataRead {
  pageCount: number;
  pdfVersion: string;
  encrypted: boolean;
  tagged: boolean;
  /** The Info dictionary, as strings (dates as ISO 8601). */
  info: Record<string, string>;
  /** The XMP metadata packet, if the catalog has one. */
  xmp?: string;
  /** pdfaid:part + conformance ("PDF/A-2b"), pdfuaid:part ("PDF/UA-1"), if the XMP claims them. */
  pdfa?: string;
  pdfua?: string;
  attachments: { name: string; contentType?: string; relationship?: string; bytes: number }[];
}

export interface PdfEngine {
  /** A render's PDF, finished with the request's options (only those given). */
  finish(pdf: Buffer, finishing: PdfFinishing, signal?: AbortSignal): Promise<PdfProduct>;
  /**
   * Uploaded PDFs: each checked first (a clear 400 or 422 for what cannot be read safely), joined in the
   * order given when there are several, then finished with the options.
   */
  process(inputs: PdfInput[], finishing: PdfFinishing, signal?: AbortSignal): Promise<PdfProduct>;
  /** The metadata of an uploaded PDF (checked like any input). */
  readMetadata(input: PdfInput, signal?: AbortSignal): Promise<PdfMetadataRead>;
}
