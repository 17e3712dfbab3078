// tracing.headers in the form OpenTelemetry's OTEL_EXPORTER_OTLP_HEADERS uses: name=value pairs separated
// by commas (a value may hold "="; names and values are trimmed). Read without regexes (see domain/trim.ts).

const TOKEN_CHARS = "!#$%&'*+-.^_`|~";
const isTokenChar = (ch: string) =>
  (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || TOKEN_CHARS.includes(ch);

/** The headers `text` names; undefined when a pair has no "=" or its name is not an HTTP header name. */
export function parseExportHeaders(text: string): Record<string, string> | undefined {
  const headers: Record<string, string> = {};
  if (text.trim() === '') return headers;
  for (const pair of text.split(',')) {
    const at = pair.indexOf('=');
    if (at < 0) return undefined;
    const name = pair.slice(0, at).trim();
    if (name === '' || ![...name].every(isTokenChar)) return undefined;
    headers[name.toLowerCase()] = pair.slice(at + 1).trim();
  }
  return headers;
}
