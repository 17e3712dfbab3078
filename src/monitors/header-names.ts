// HTTP reads header names case-insensitively, so a PATCH of capture.headers does too: "x-token" names
// the stored "X-Token". Merged as JSON (case-sensitively) the two spellings would both be kept and
// both sent — the old value, still kept behind its "••••", beside the new one.

/**
 * The patch's capture.headers with each member that names a stored header in another spelling made
 * to replace it: the stored spelling is removed (null) and the member set as sent, so the header
 * takes the spelling sent last and a "••••" under the new spelling still stands for the stored value.
 */
export function foldHeaderNames(patch: unknown, storedNames: readonly string[]): unknown {
  const headers = objectAt(objectAt(patch, 'capture'), 'headers');
  if (!headers) return patch;
  const folded: Record<string, unknown> = {};
  const set = (name: string, value: unknown) => {
    // Defined, not assigned: a "__proto__" name must stay a plain (and then refused) key.
    Object.defineProperty(folded, name, { value, enumerable: true, writable: true, configurable: true });
  };
  for (const [name, value] of Object.entries(headers)) {
    const sameName = (other: string) => other !== name && other.toLowerCase() === name.toLowerCase();
    // Earlier members of this patch in another spelling are replaced too: the last one sent wins.
    for (const other of Object.keys(folded)) if (sameName(other)) delete folded[other];
    for (const other of storedNames) if (sameName(other)) set(other, null);
    set(name, value);
  }
  const capture = objectAt(patch, 'capture')!;
  return { ...(patch as object), capture: { ...capture, headers: folded } };
}

function objectAt(value: unknown, key: string): Record<string, unknown> | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const member = Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
  return member !== null && typeof member === 'object' && !Array.isArray(member)
    ? (member as Record<string, unknown>)
    : undefined;
}
