/**
 * Header-only image inspection: the pixel size of a PNG or JPEG without decoding it, so a 20 MB
 * file that would inflate to gigabytes (a decompression bomb, or just a 100-megapixel photo) is
 * refused or downscaled before anything allocates its bitmap.
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
 * Re-encodes an image as PNG at most `maxPixels` large. OCR time grows with pixel count while
 * accuracy stops improving around 200–300 dpi, so phone photos and 600 dpi scans are brought down
 * to that range first.
 */
export async function downscaleImage(bytes: Uint8Array, size: ImageSize, maxPixels: number): Promise<Uint8Array> {
  const { loadImage, createCanvas } = await import('@napi-rs/canvas');
  const factor = Math.sqrt(maxPixels / (size.width * size.height));
  const image = await loadImage(Buffer.from(bytes));
  const width = Math.max(1, Math.floor(image.width * factor));
  const height = Math.max(1, Math.floor(image.height * factor));
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.imageSmoothingQuality = 'high';
  context.drawImage(image, 0, 0, width, height);
  return new Uint8Array(await canvas.encode('png'));
}
