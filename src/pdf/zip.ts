// The parts of a split, as one zip. fflate: no dependencies, maintained, and its async zip works off the
// main thread. Stored, not deflated: a PDF's streams are compressed already, so deflating again costs CPU
// and saves next to nothing.
import { zip, type AsyncZippable } from 'fflate';

export function zipFiles(files: { name: string; bytes: Uint8Array }[]): Promise<Buffer> {
  const entries: AsyncZippable = {};
  for (const f of files) entries[f.name] = [f.bytes, { level: 0 }];
  return new Promise((resolve, reject) =>
    zip(entries, (err, data) =>
      err ? reject(err) : resolve(Buffer.from(data.buffer, data.byteOffset, data.byteLength)),
    ),
  );
}
