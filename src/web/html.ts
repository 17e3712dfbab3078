// Server-side HTML for the docs page: a template tag that escapes every interpolated value, and
// numbers in words.

/** Markup built by `html`: inserted as is. Anything else interpolated is escaped. */
export class Markup {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** What may be interpolated: markup as is, text and numbers escaped, nothing for null/undefined/false. */
export type Piece = Markup | string | number | boolean | null | undefined | readonly Piece[];

function piece(value: Piece): string {
  if (value instanceof Markup) return value.text;
  if (Array.isArray(value)) return (value as readonly Piece[]).map(piece).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Piece[]): Markup {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += piece(value) + (strings[i + 1] ?? '');
  });
  return new Markup(out);
}

// --- numbers in words ---------------------------------------------------------------------------

const trim = (n: number) => String(Math.round(n * 10) / 10);

export function bytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  if (n >= 1024 * 1024) return `${trim(n / (1024 * 1024))} MiB`;
  return `${n} bytes`;
}

export function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${trim(ms / 1000)} s`;
  if (ms < 3_600_000) return `${trim(ms / 60_000)} min`;
  if (ms < 86_400_000) return `${trim(ms / 3_600_000)} h`;
  return `${trim(ms / 86_400_000)} d`;
}

export const hours = (h: number) => (h === 1 ? '1 hour' : `${h} hours`);
export const code = (text: Piece) => html`<code>${text}</code>`;
/** A code block a keyboard can reach (it may scroll sideways). */
export const pre = (text: string, label: string) =>
  html`<pre tabindex="0" aria-label="${label}"><code>${text}</code></pre>`;
