// What every page uses to talk to the service: the same public API as any client.

const KEY_STORAGE = 'pagewatch.apiKey';

/** The API key the user pasted (kept in this browser only), or '' for none. */
export function storedKey() {
  try {
    return localStorage.getItem(KEY_STORAGE) ?? '';
  } catch {
    return '';
  }
}

export function storeKey(key) {
  try {
    if (key) localStorage.setItem(KEY_STORAGE, key);
    else localStorage.removeItem(KEY_STORAGE);
  } catch {
    /* storage refused (private mode): the key lives for this page only */
  }
}

/**
 * fetch with the key (when given) and JSON in/out. A non-2xx answer throws an ApiError carrying the
 * contract's error body, so callers can show its words and field details.
 */
export async function api(method, path, { key = '', body, accept, signal } = {}) {
  const headers = {};
  if (key) headers.authorization = `Bearer ${key}`;
  // FormData (an upload) sets its own multipart content type, boundary included.
  const form = body instanceof FormData;
  if (body !== undefined && !form) headers['content-type'] = 'application/json';
  if (accept) headers.accept = accept;
  let res;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined || form ? body : JSON.stringify(body),
      signal,
    });
  } catch (err) {
    if (err.name === 'AbortError') throw err; // the caller canceled: not the service's failure
    throw new ApiError(0, 'network', `The service could not be reached (${err.message}).`);
  }
  if (res.ok) return res;
  let error = { code: 'http_' + res.status, message: `The service answered ${res.status} ${res.statusText}.` };
  try {
    const parsed = await res.json();
    if (parsed && parsed.error) error = parsed.error;
  } catch {
    /* not the contract's JSON: keep the generic words */
  }
  const retryAfter = res.headers.get('retry-after');
  throw new ApiError(res.status, error.code, error.message, error.details ?? [], retryAfter);
}

export class ApiError extends Error {
  constructor(status, code, message, details = [], retryAfter = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.retryAfter = retryAfter;
  }

  /**
   * The error in words for a person. The service's message already is one plain sentence (what
   * happened, the limit, what to do), so it is shown as it is; words of our own only stand in when
   * there is none (the service could not be reached, or answered without the contract's body).
   */
  get explanation() {
    if (this.message && !this.code.startsWith('http_') && this.code !== 'network') return this.message;
    const why = {
      network: 'The service could not be reached; check your connection and try again.',
    }[this.code];
    return why ?? this.message;
  }
}
