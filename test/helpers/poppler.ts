// Poppler's own readers of a PDF (Debian's poppler-utils, installed by .ci/run as a test tool): the text
// `pdftotext` extracts and the fonts `pdffonts` lists — what a user's own tools would see in the file.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function withPdfFile<T>(bytes: Uint8Array, read: (file: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'pagewatch-poppler-'));
  try {
    const file = join(dir, 'in.pdf');
    await writeFile(file, bytes);
    return await read(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The PDF's text as `pdftotext -enc UTF-8` gives it. */
export function pdftotext(bytes: Uint8Array): Promise<string> {
  return withPdfFile(bytes, async (file) => (await run('pdftotext', ['-enc', 'UTF-8', file, '-'])).stdout);
}

export interface PopplerFont {
  /** The name pdffonts lists, subset tag removed ("[none]" for a Type 3 font without a BaseFont). */
  name: string;
  type: string;
  embedded: boolean;
}

/** The fonts `pdffonts` lists: name, type and whether the font is embedded. */
export function pdffonts(bytes: Uint8Array): Promise<PopplerFont[]> {
  return withPdfFile(bytes, async (file) => {
    const { stdout } = await run('pdffonts', [file]);
    // Fixed columns: name (36), type (17), encoding (16), then emb/sub/uni/object ID.
    return stdout
      .split('\n')
      .slice(2)
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const [emb] = line.slice(71).trim().split(/\s+/);
        return {
          name: line
            .slice(0, 36)
            .trim()
            .replace(/^[A-Z]{6}\+/, ''),
          type: line.slice(37, 54).trim(),
          embedded: emb === 'yes',
        };
      });
  });
}

/** `pdfinfo` as key → value (Title, Producer, Pages, Encrypted, ...); `password` opens an encrypted file. */
export function pdfinfo(bytes: Uint8Array, password?: string): Promise<Record<string, string>> {
  return withPdfFile(bytes, async (file) => {
    const { stdout } = await run('pdfinfo', [...(password ? ['-upw', password] : []), file]);
    return Object.fromEntries(
      stdout
        .split('\n')
        .map((line) => /^([^:]+):\s*(.*)$/.exec(line))
        .filter((m) => m !== null)
        .map((m) => [m[1]!, m[2]!]),
    );
  });
}

/** The attachments `pdfdetach -list` names, and the bytes `pdfdetach -save` gives back for each. */
export function pdfdetach(bytes: Uint8Array): Promise<{ name: string; bytes: Buffer }[]> {
  return withPdfFile(bytes, async (file) => {
    const { stdout } = await run('pdfdetach', ['-list', file]);
    const names = stdout
      .split('\n')
      .map((line) => /^\d+: (.*)$/.exec(line)?.[1])
      .filter((n): n is string => n !== undefined);
    const out: { name: string; bytes: Buffer }[] = [];
    for (const [i, name] of names.entries()) {
      const target = join(file, '..', `attachment-${i}`);
      await run('pdfdetach', ['-save', String(i + 1), '-o', target, file]);
      out.push({ name, bytes: await readFile(target) });
    }
    return out;
  });
}
