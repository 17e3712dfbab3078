// What a monitor's URL served, as each capture records it: the kind decides how it is read and compared
// (src/content reads it). Decided by the response's type and its first bytes, not by the URL's extension.

export const CONTENT_KINDS = ['html', 'pdf', 'json', 'text', 'binary'] as const;
export type ContentKind = (typeof CONTENT_KINDS)[number];

/** What was read, as stored with the capture and shown by the API. */
export interface CaptureContent {
  kind: ContentKind;
  /** The response's media type as served (without parameters), lower case; null when none was sent. */
  mediaType: string | null;
  /** Bytes of the response body that were read (html: null, the browser read it). */
  bytes: number | null;
  /** PDF: the document's page count, and how many of them were read (fewer: a limit cut it). */
  pages?: number;
  pagesRead?: number;
  /** Why only part of it was read (a byte or page limit), in words; absent when all of it was. */
  cut?: string;
  /** binary: the SHA-256 of the bytes read, hex. */
  sha256?: string;
}
