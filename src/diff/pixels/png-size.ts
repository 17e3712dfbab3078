// A PNG's size from its header, so an image can be refused before it is decoded: decoding allocates
// width × height × 4 bytes at once, whatever the file's own size (a 100-byte file can claim 10^10 pixels).

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from the IHDR chunk (always first, at byte 8), without decoding the image. */
export function pngSize(bytes: Buffer): { width: number; height: number } {
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE) || bytes.toString('latin1', 12, 16) !== 'IHDR') {
    throw new Error('not a PNG: no signature and IHDR header');
  }
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** An image over limits.maxImagePixels: refused, never decoded. */
export class ImageTooLarge extends Error {}

/** Throws ImageTooLarge when the PNG's header claims more than `maxPixels` pixels. */
export function assertPngWithin(bytes: Buffer, maxPixels: number, which: string): void {
  const { width, height } = pngSize(bytes);
  if (width * height > maxPixels) {
    throw new ImageTooLarge(
      `the ${which} image is ${width}×${height} = ${width * height} pixels, over the limit of ${maxPixels} ` +
        `(limits.maxImagePixels)`,
    );
  }
}
