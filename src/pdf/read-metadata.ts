// What /api/pdf/metadata answers, read with qpdf --json (version 2): the objects without their stream
// data, the attachments, the encryption; the XMP packet is the one stream read, decoded by qpdf.
import { readArchiveClaims } from './archive/index.js';
import { invalidPdf } from '../errors.js';
import type { PdfMetadataRead } from './engine.js';
import { runQpdf, type Bounds } from './qpdf.js';

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type Dict = Record<string, Json>;

interface QpdfJson {
  qpdf: [{ pdfversion: string }, Record<string, { value?: Json; stream?: { dict: Dict } }>];
  encrypt?: { encrypted: boolean };
  attachments: Record<
    string,
    {
      preferredname: string;
      preferredcontents: string;
      filespec: string;
      streams?: Record<string, { mimetype?: string }>;
    }
  >;
}

const unreadable = () => invalidPdf('The PDF’s metadata cannot be read.');

/** A PDF date ("D:20240131120000+01'00'") as ISO 8601; anything else as it is. */
export function pdfDateToIso(text: string): string {
  const m = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(Z|[+-]\d{2}'?\d{2}'?)?/.exec(text);
  if (!m) return text;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', zone] = m;
  const offset = !zone || zone === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.replace(/'/g, '').slice(3, 5) || '00'}`;
  return `${y}-${mo}-${d}T${h}:${mi}:${s}${offset}`;
}

/** A qpdf JSON v2 string ("u:text", "b:hex"), name ("/Name") or other value as plain text. */
function text(value: Json | undefined): string | undefined {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') return undefined;
  if (value.startsWith('u:')) return value.slice(2);
  if (value.startsWith('b:')) return Buffer.from(value.slice(2), 'hex').toString('latin1');
  if (value.startsWith('/')) return value.slice(1);
  return value;
}

/**
 * Reads `file` (a checked, decrypted input); `source` is the file as uploaded (with `passwordArgs`) for
 * whether it was encrypted.
 */
export async function readMetadataOf(
  dir: string,
  file: string,
  source: string,
  passwordArgs: string[],
  pageCount: number,
  bounds: Bounds,
): Promise<PdfMetadataRead> {
  const json = JSON.parse(
    (
      await runQpdf(dir, ['--json=2', '--json-key=qpdf', '--json-key=attachments', file], bounds, unreadable)
    ).stdout.toString(),
  ) as QpdfJson;
  const encryption = JSON.parse(
    (
      await runQpdf(dir, [...passwordArgs, '--json=2', '--json-key=encrypt', source], bounds, unreadable)
    ).stdout.toString(),
  ) as QpdfJson;
  const [header, objects] = json.qpdf;
  const resolve = (value: Json | undefined): Json | undefined =>
    typeof value === 'string' && /^\d+ \d+ R$/.test(value)
      ? (objects[`obj:${value}`]?.value ?? objects[`obj:${value}`]?.stream?.dict)
      : value;
  const dict = (value: Json | undefined): Dict => {
    const v = resolve(value);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  };
  const trailer = dict(objects.trailer?.value);
  const root = dict(trailer['/Root']);
  const info: Record<string, string> = {};
  for (const [key, value] of Object.entries(dict(trailer['/Info']))) {
    const s = text(resolve(value));
    if (s !== undefined) info[key.slice(1)] = /Date$/.test(key) ? pdfDateToIso(s) : s;
  }
  const markInfo = dict(root['/MarkInfo']);
  const tagged = markInfo['/Marked'] === true;

  let xmp: string | undefined;
  const metadataRef = root['/Metadata'];
  if (typeof metadataRef === 'string' && /^\d+ \d+ R$/.test(metadataRef)) {
    const id = metadataRef.split(' ').slice(0, 2).join(',');
    const shown = await runQpdf(dir, [`--show-object=${id}`, '--filtered-stream-data', file], bounds, unreadable);
    xmp = shown.stdout.toString('utf8');
  }
  const claims = xmp === undefined ? {} : readArchiveClaims(xmp);

  const attachments = Object.entries(json.attachments ?? {}).map(([key, a]) => {
    const stream = dict(a.preferredcontents);
    const params = dict(stream['/Params']);
    const size = typeof params['/Size'] === 'number' ? params['/Size'] : Number(stream['/Length'] ?? 0);
    const spec = dict(a.filespec);
    const contentType = Object.values(a.streams ?? {})[0]?.mimetype;
    const relationship = text(spec['/AFRelationship']);
    return {
      name: a.preferredname ?? key,
      ...(contentType && { contentType }),
      ...(relationship && { relationship }),
      bytes: size,
    };
  });
  return {
    pageCount,
    pdfVersion: header.pdfversion,
    encrypted: encryption.encrypt?.encrypted ?? false,
    tagged,
    info,
    ...(xmp !== undefined && { xmp }),
    ...(claims.pdfa && { pdfa: claims.pdfa }),
    ...(claims.pdfua && { pdfua: claims.pdfua }),
    attachments,
  };
}
