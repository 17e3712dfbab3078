// A PNG that is only its signature and header (IHDR): it claims any size in a few dozen bytes, so a
// test can prove an image is refused from its header, before anything tries to decode it.

export function pngHeaderOnly(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  const length = Buffer.alloc(4);
  length.writeUInt32BE(13);
  const crc = Buffer.alloc(4); // never checked: nothing may get as far as reading the chunk
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    length,
    Buffer.from('IHDR', 'latin1'),
    ihdr,
    crc,
  ]);
}
