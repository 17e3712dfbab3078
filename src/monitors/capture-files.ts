// Where a capture's files are stored: their keys in the file store, and the capture a key belongs to.
// Apart from capture-job.ts because the orphan sweep (src/app/compose.ts) reads keys back without running captures.

/** A capture's files live in its monitor's folder, so deleting the monitor removes them in one go. */
export function captureFileKeys(monitorId: string, captureId: string): { image: string; diff: string; text: string } {
  return {
    image: `${monitorId}/${captureId}`,
    diff: `${monitorId}/${captureId}-diff`,
    text: `${monitorId}/${captureId}-text`,
  };
}

/** The capture a stored file belongs to: the inverse of captureFileKeys. */
export function captureIdOfFileKey(key: string): string {
  return key.slice(key.indexOf('/') + 1).replace(/-(diff|text)$/, '');
}
