// What a caller may ask of a PDF besides printing it: archive it (PDF/A), make it accessible (PDF/UA),
// describe it (metadata), attach files (embeds, Factur-X), protect it (encrypt), brand it (watermark,
// stamp), cut it up (split) and flatten its forms. The same options apply after a render (/api/pdf) and
// to uploaded PDFs (/api/pdf/merge, /split, /convert, /metadata, /encrypt, /stamp, /flatten). The HTTP
// schemas validate the wire format and produce these types; the PDF engine (src/pdf) carries them out.

/** PDF/A levels offered: PDF/A-1b is not, since it forbids the transparency Chromium's output uses. */
export const PDFA_LEVELS = ['PDF/A-2b', 'PDF/A-3b'] as const;
export type PdfALevel = (typeof PDFA_LEVELS)[number];

/** ISO 32000-2 / PDF/A-3 `AFRelationship` values of an associated file. */
export const AF_RELATIONSHIPS = [
  'Source',
  'Data',
  'Alternative',
  'Supplement',
  'EncryptedPayload',
  'FormData',
  'Schema',
  'Unspecified',
] as const;
export type AfRelationship = (typeof AF_RELATIONSHIPS)[number];

export interface PdfMetadata {
  title?: string;
  author?: string;
  subject?: string;
  keywords?: string;
  creator?: string;
  producer?: string;
  /** ISO 8601 date-time. */
  creationDate?: string;
  /** ISO 8601 date-time. */
  modificationDate?: string;
  /** BCP 47 language tag: the catalog's /Lang. */
  language?: string;
  /** Extra Info dictionary keys (and their XMP counterparts under the pdfx namespace). */
  custom?: Record<string, string>;
}

/** A file attached to the PDF (an embedded file with its file specification in the catalog's /AF). */
export interface PdfAttachment {
  name: string;
  contentType: string;
  relationship: AfRelationship;
  description?: string;
  bytes: Buffer;
}

/** An e-invoice: the invoice XML (UN/CEFACT CII) attached to a PDF/A-3b, with the Factur-X XMP schema. */
export interface PdfInvoice {
  xml: Buffer;
  /** Factur-X / ZUGFeRD 2.x conformance level, as written to the XMP (fx:ConformanceLevel). */
  profile: string;
}

export const PRINT_PERMISSIONS = ['none', 'low', 'full'] as const;

export interface PdfPermissions {
  print: (typeof PRINT_PERMISSIONS)[number];
  copy: boolean;
  modify: boolean;
  annotate: boolean;
  fillForms: boolean;
  assemble: boolean;
}

/** AES-256 encryption. Passwords are write-only: never logged, never returned, sealed at rest in jobs. */
export interface PdfEncryption {
  /** Needed to open the file; empty or absent: anyone may open it, the permissions still apply. */
  userPassword?: string;
  ownerPassword: string;
  permissions: PdfPermissions;
}

export const STAMP_POSITIONS = [
  'center',
  'top',
  'bottom',
  'left',
  'right',
  'top-left',
  'top-right',
  'bottom-left',
  'bottom-right',
] as const;
export type StampPosition = (typeof STAMP_POSITIONS)[number];

/**
 * A watermark (drawn behind the content) or a stamp (over it): text or an image, placed on the chosen
 * pages. Drawn as an artifact, so the tags and the text of the page are unchanged.
 */
export interface PdfStamp {
  /** Exactly one of text and image. */
  text?: string;
  image?: { contentType: string; bytes: Buffer };
  /** Text: size in points, CSS colour and font family. */
  fontSize?: number;
  color?: string;
  fontFamily?: string;
  /** Image: width in points (height follows the aspect ratio); absent: its natural size at 96 dpi. */
  width?: number;
  opacity: number;
  /** Degrees, counter-clockwise. */
  rotation: number;
  position: StampPosition;
  /** Points from the position's edge(s). */
  offsetX: number;
  offsetY: number;
  /** Page ranges such as "1-3,5"; absent: every page. */
  pages?: string;
}

/** Exactly one of ranges ("1-3,4-6": one part per range) and every (a part every N pages). */
export interface PdfSplit {
  ranges?: string;
  every?: number;
}

/** The options a PDF may be finished with, each applied only when present. */
export interface PdfFinishing {
  pdfa?: PdfALevel;
  pdfua?: boolean;
  metadata?: PdfMetadata;
  embeds?: PdfAttachment[];
  facturx?: PdfInvoice;
  encrypt?: PdfEncryption;
  watermark?: PdfStamp;
  stamp?: PdfStamp;
  split?: PdfSplit;
  flatten?: boolean;
}
