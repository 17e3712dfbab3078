// Facts about the URLs a caller gives, shared by the request schemas and the renderer.

/**
 * A URL with a user name or password before its host (`http://user:pass@host/`). Chromium keeps such
 * credentials for its whole browser context, so the API refuses them and a warm page whose render met
 * one anyway (page script, a stored monitor) is replaced rather than wiped.
 */
export function hasUserinfo(url: string): boolean {
  const u = URL.parse(url);
  return u !== null && (u.protocol === 'http:' || u.protocol === 'https:') && (u.username !== '' || u.password !== '');
}
