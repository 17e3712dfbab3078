// Text content: its bytes decoded and cut into lines, as a capture compares them. Pure and synchronous:
// it runs in the content thread (thread.ts), so a 20 MiB file is decoded and split off the event loop.

/**
 * The bytes as text: a byte order mark decides (UTF-8, UTF-16LE/BE), else the declared charset if
 * TextDecoder knows it, else UTF-8. Bytes that do not decode become U+FFFD rather than failing.
 */
export function decodeText(bytes: Uint8Array, charset: string | null): string {
  let label = charset ?? 'utf-8';
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) label = 'utf-8';
  else if (bytes[0] === 0xff && bytes[1] === 0xfe) label = 'utf-16le';
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) label = 'utf-16be';
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label); // drops the BOM it recognises
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  return decoder.decode(bytes);
}

export interface TextLine {
  /** 1-based line number in the file. */
  line: number;
  /** The line without trailing whitespace. */
  text: string;
}

/** The non-blank lines (LF, CRLF or CR ends a line), at most `maxLines`; `total` counts them all. */
export function textLines(text: string, maxLines: number): { lines: TextLine[]; total: number } {
  const lines: TextLine[] = [];
  let total = 0;
  let n = 0;
  // A scan rather than split(): 20 MiB of empty lines must not become 20 million strings at once.
  const end = /\r\n|\n|\r/g;
  let start = 0;
  for (;;) {
    const match = end.exec(text);
    const stop = match ? match.index : text.length;
    n++;
    const raw = text.slice(start, stop);
    if (raw.trim() !== '') {
      total++;
      if (lines.length < maxLines) lines.push({ line: n, text: raw.trimEnd() });
    }
    if (!match) break;
    start = end.lastIndex;
  }
  return { lines, total };
}
