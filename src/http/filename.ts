// The filename of a rendered file: safe in a header and on any file system.
/** A name safe in a header and on any file system; the right extension is added when missing. */
export function safeFilename(requested: string | undefined, fallback: string): string {
  const ext = fallback.slice(fallback.lastIndexOf('.'));
  const base = (requested ?? '')
    .split(/[\\/]/)
    .pop()!
    // Control characters are what is being removed, so the pattern has to name them.
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f"]/g, '')
    .trim();
  if (!base || base === '.' || base === '..') return fallback;
  const accepted = ext === '.jpg' ? ['.jpg', '.jpeg'] : [ext];
  return accepted.some((e) => base.toLowerCase().endsWith(e)) ? base : `${base}${ext}`;
}

export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_');
  return ascii === filename
    ? `inline; filename="${filename}"`
    : `inline; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
