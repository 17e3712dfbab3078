// The images of the history's captures (a capture's PNG, or its diff), fetched with the key and kept as
// blob: URLs while that capture is selected: the viewer and the region crops draw from the same fetch.
import { call } from '/assets/monitors-util.js';

/** blob: URLs by "captureId/which"; revoked when another capture is selected. */
let images = new Map();
/** Bumped by clearImages: a load that started before it must not show its result. */
export let imageGeneration = 0;

export function clearImages() {
  imageGeneration++;
  for (const entry of images.values())
    entry.then(
      (url) => url && URL.revokeObjectURL(url),
      () => {},
    );
  images = new Map();
}

/** The image of a capture (`image`) or its diff (`diff`), fetched with the key, as a blob: URL. */
export function imageUrl(captureId, which) {
  const cacheKey = `${captureId}/${which}`;
  if (!images.has(cacheKey)) {
    images.set(
      cacheKey,
      (async () => {
        const res = await call('GET', `/api/captures/${encodeURIComponent(captureId)}/${which}`);
        return URL.createObjectURL(await res.blob());
      })(),
    );
    images.get(cacheKey).catch(() => images.delete(cacheKey)); // a failed load may be tried again
  }
  return images.get(cacheKey);
}

/** The image of a capture, decoded (for drawing on a canvas). */
export async function decodedImage(captureId) {
  const img = new Image();
  img.src = await imageUrl(captureId, 'image');
  await img.decode();
  return img;
}
