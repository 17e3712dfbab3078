// The PDF work an async `pdf` job carries: the finishing of a render, or a PDF tool's inputs and options
// (then `tool` says which, and there is no page to render). Kept in the job's row as JSON without bytes
// or clear passwords: every file (an input PDF, an attachment, a stamp's image) goes into the job's
// upload bundle under a name no uploaded file can have, and every password is sealed with the SecretBox,
// bound to the job's id.
import type { PdfFinishing } from '../domain/pdf-spec.js';
import type { UploadedFile } from '../domain/render-spec.js';
import type { PdfEngine, PdfInput, PdfProduct } from '../pdf/engine.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { JobRequest } from '../stores/jobs.js';
import { inSpan } from '../tracing/spans.js';

/** The PDF tools, each a route /api/pdf/<tool>. */
export const PDF_TOOLS = ['merge', 'split', 'convert', 'metadata', 'encrypt', 'stamp', 'flatten'] as const;
export type PdfTool = (typeof PDF_TOOLS)[number];

export interface PdfWork {
  finishing: PdfFinishing;
  /** A tool's input PDFs, in order (absent: the render's own PDF). */
  inputs?: PdfInput[];
  tool?: PdfTool;
}

/** "%" is refused in an uploaded file's name (upload-paths.ts): these never meet a page's own files. */
const BUNDLE_PREFIX = '%pdf/';
export const isPdfWorkFile = (path: string) => path.startsWith(BUNDLE_PREFIX);

/** Walks a value, replacing Buffers (and, at the password keys, strings) as the callbacks say. */
function mapDeep(value: unknown, buffer: (b: Buffer) => unknown, password: (s: string) => unknown, key = ''): unknown {
  if (Buffer.isBuffer(value)) return buffer(value);
  if (typeof value === 'string' && /password$/i.test(key)) return password(value);
  if (Array.isArray(value)) return value.map((v) => mapDeep(v, buffer, password));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapDeep(v, buffer, password, k)]));
  return value;
}

/**
 * The row's form of the work and the files that go into the bundle. `fingerprint` is the same with each
 * password replaced by its HMAC: equal requests compare equal for the Idempotency-Key.
 */
export function packPdfWork(
  work: PdfWork,
  box: SecretBox,
  jobId: string,
): { stored: JobRequest; fingerprint: JobRequest; files: UploadedFile[] } {
  const files: UploadedFile[] = [];
  const toFile = (bytes: Buffer) => {
    const path = `${BUNDLE_PREFIX}${files.length}`;
    files.push({ path, contentType: 'application/octet-stream', bytes });
    return { $file: path };
  };
  const stored = mapDeep(work, toFile, (s) => box.encrypt(s, jobId)) as JobRequest;
  let n = 0;
  const fingerprint = mapDeep(
    work,
    () => ({ $file: `${BUNDLE_PREFIX}${n++}` }),
    (s) => box.fingerprint(s),
  ) as JobRequest;
  return { stored, fingerprint, files }; // the bytes count through the bundle's digest (its marker)
}

/** The work back from the row and the bundle: files by name, passwords opened. */
export function unpackPdfWork(
  stored: JobRequest,
  bundle: readonly UploadedFile[],
  box: SecretBox,
  jobId: string,
): PdfWork {
  const byPath = new Map(bundle.map((f) => [f.path, f.bytes]));
  const walk = (value: unknown, key = ''): unknown => {
    if (typeof value === 'string' && /password$/i.test(key)) return box.decrypt(value, jobId);
    if (Array.isArray(value)) return value.map((v) => walk(v));
    if (value && typeof value === 'object') {
      const file = (value as { $file?: unknown }).$file;
      if (typeof file === 'string') {
        const bytes = byPath.get(file);
        if (!bytes) throw new Error(`the job's file ${file} is missing from its upload`);
        return bytes;
      }
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
    }
    return value;
  };
  return walk(stored) as PdfWork;
}

/** What PDF work makes: a PDF, a zip of parts (split), or the JSON of a metadata read. */
export interface PdfWorkResult {
  bytes: Buffer;
  contentType: 'application/pdf' | 'application/zip' | 'application/json';
  pageCount?: number;
  parts?: { name: string; pageCount: number }[];
}

/** The answer's media type, known before the work is done (a job's download name needs it). */
export function pdfWorkFormat(work: Pick<PdfWork, 'finishing' | 'tool'>): 'pdf' | 'zip' | 'json' {
  if (work.tool === 'metadata' && !work.finishing.metadata) return 'json';
  return work.finishing.split ? 'zip' : 'pdf';
}

/** Carries out the work: the render's PDF finished (`rendered`), or the tool run on its inputs. */
export function runPdfWork(
  engine: PdfEngine,
  work: PdfWork,
  rendered: Buffer | undefined,
  signal?: AbortSignal,
): Promise<PdfWorkResult> {
  const attributes = {
    'pagewatch.pdf.work': rendered ? 'finishing' : (work.inputs?.length ?? 0) > 0 ? 'tool' : 'none',
  };
  return inSpan('post-processing', attributes, () => pdfWorkResult(engine, work, rendered, signal));
}

async function pdfWorkResult(
  engine: PdfEngine,
  work: PdfWork,
  rendered: Buffer | undefined,
  signal?: AbortSignal,
): Promise<PdfWorkResult> {
  if (pdfWorkFormat(work) === 'json') {
    const read = await engine.readMetadata(work.inputs![0]!, signal);
    return { bytes: Buffer.from(JSON.stringify(read)), contentType: 'application/json', pageCount: read.pageCount };
  }
  const product: PdfProduct = rendered
    ? await engine.finish(rendered, work.finishing, signal)
    : await engine.process(work.inputs ?? [], work.finishing, signal);
  return product.kind === 'pdf'
    ? { bytes: product.bytes, contentType: 'application/pdf', pageCount: product.pageCount }
    : {
        bytes: product.bytes,
        contentType: 'application/zip',
        parts: product.parts,
        pageCount: product.parts.reduce((n, p) => n + p.pageCount, 0),
      };
}
