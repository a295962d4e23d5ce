/**
 * Header-only image inspection: the pixel size of a PNG or JPEG without decoding it, so a 20 MB
 * file that would inflate to gigabytes (a decompression bomb, or just a 100-megapixel photo) is
 * refused or downscaled before anything allocates its bitmap; and a JPEG's EXIF orientation.
 * Decoding is ocr/raster.ts's.
 */
export interface ImageSize { readonly width: number; readonly height: number; }

export function readImageSize(bytes: Uint8Array, mimeType: 'image/png' | 'image/jpeg'): ImageSize | undefined {
  return mimeType === 'image/png' ? pngSize(bytes) : jpegSize(bytes);
}

function pngSize(bytes: Uint8Array): ImageSize | undefined {
  // 8-byte signature, then the IHDR chunk: length(4) "IHDR"(4) width(4) height(4).
  if (bytes.byteLength < 24) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (String.fromCharCode(...bytes.subarray(12, 16)) !== 'IHDR') return undefined;
  const width = view.getUint32(16);
  const height = view.getUint32(20);
  return width > 0 && height > 0 ? { width, height } : undefined;
}

function jpegSize(bytes: Uint8Array): ImageSize | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 2; // after SOI
  while (offset + 9 < bytes.byteLength) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = bytes[offset + 1]!;
    if (marker === 0xff) { offset++; continue; } // fill byte
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) { offset += 2; continue; }
    const length = view.getUint16(offset + 2);
    // SOF0..SOF15 carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but do not.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      const height = view.getUint16(offset + 5);
      const width = view.getUint16(offset + 7);
      return width > 0 && height > 0 ? { width, height } : undefined;
    }
    if (marker === 0xda || length < 2) return undefined; // start of scan before any frame header
    offset += 2 + length;
  }
  return undefined;
}

/**
 * The EXIF orientation (1–8) of a JPEG: how a camera says the stored pixels must be turned to be
 * upright. 1 (or no EXIF) means as stored. Reads only the APP1 segment's first IFD.
 */
export function readExifOrientation(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 4 || view.getUint16(0) !== 0xffd8) return 1;
  let offset = 2;
  while (offset + 4 <= bytes.byteLength && bytes[offset] === 0xff) {
    const marker = bytes[offset + 1]!;
    const length = view.getUint16(offset + 2);
    if (marker === 0xda || length < 2) return 1;
    if (marker === 0xe1 && offset + 4 + length - 2 <= bytes.byteLength && String.fromCharCode(...bytes.subarray(offset + 4, offset + 8)) === 'Exif') {
      const tiff = offset + 10;
      if (tiff + 8 > bytes.byteLength) return 1;
      const little = view.getUint16(tiff) === 0x4949;
      const ifd = tiff + view.getUint32(tiff + 4, little);
      if (ifd + 2 > bytes.byteLength) return 1;
      const count = view.getUint16(ifd, little);
      for (let i = 0; i < count && ifd + 2 + 12 * (i + 1) <= bytes.byteLength; i++) {
        const entry = ifd + 2 + 12 * i;
        if (view.getUint16(entry, little) === 0x0112) {
          const value = view.getUint16(entry + 8, little);
          return value >= 1 && value <= 8 ? value : 1;
        }
      }
      return 1;
    }
    offset += 2 + length;
  }
  return 1;
}
