import { inflateRawSync } from 'node:zlib';
import { documentFailure, documentOk, type DocumentResult } from './types.ts';

/**
 * A ZIP reader for DOCX that never trusts the archive: the central directory is read without
 * inflating anything, and each part is inflated only when asked for, with zlib stopping at the
 * part's declared size (+1 byte to see a lie). A part that inflates past what it declared is
 * refused as soon as the extra byte appears, so a bomb with forged sizes costs at most its
 * declared total (itself capped) to find out, instead of the gigabytes it would inflate to.
 * JSZip, which mammoth uses, checks the real size only after it has inflated the whole part.
 */

export interface ZipLimits {
  /** Sum of the declared uncompressed sizes. */
  readonly maxUncompressedBytes: number;
  readonly maxEntries: number;
}

interface ZipEntry {
  readonly method: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  readonly localHeaderOffset: number;
}

export interface ZipArchive {
  readonly entries: number;
  readonly uncompressed: number;
  has(name: string): boolean;
  /** The part's bytes, inflated under its declared size; a failure for a lying or broken part. */
  read(name: string): DocumentResult<Uint8Array>;
}

export function openZip(bytes: Uint8Array, limits: ZipLimits): DocumentResult<ZipArchive> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The end-of-central-directory record is in the last 22 + 65535 (comment) bytes.
  let eocd = -1;
  for (let i = bytes.byteLength - 22; i >= Math.max(0, bytes.byteLength - 22 - 65535); i--) {
    if (view.getUint32(i, true) === 0x06054b50) { eocd = i; break; }
  }
  if (eocd < 0) return documentFailure('corrupt_document', 'DOCX is not a readable ZIP archive');
  const count = view.getUint16(eocd + 10, true);
  const directoryOffset = view.getUint32(eocd + 16, true);
  if (count === 0xffff || directoryOffset === 0xffffffff) return documentFailure('corrupt_document', 'DOCX uses ZIP64, which Word never writes');
  if (count > limits.maxEntries) return documentFailure('too_large', `DOCX has ${count} parts`);
  const entries = new Map<string, ZipEntry>();
  const names = new TextDecoder('utf-8');
  let offset = directoryOffset;
  let uncompressed = 0;
  for (let n = 0; n < count; n++) {
    if (offset + 46 > bytes.byteLength || view.getUint32(offset, true) !== 0x02014b50) {
      return documentFailure('corrupt_document', 'DOCX central directory is damaged');
    }
    const nameLength = view.getUint16(offset + 28, true);
    const entry: ZipEntry = {
      method: view.getUint16(offset + 10, true),
      compressedSize: view.getUint32(offset + 20, true),
      uncompressedSize: view.getUint32(offset + 24, true),
      localHeaderOffset: view.getUint32(offset + 42, true),
    };
    uncompressed += entry.uncompressedSize;
    const name = names.decode(bytes.subarray(offset + 46, offset + 46 + nameLength));
    // The first of two same-named parts wins, as in JSZip; Word never writes duplicates.
    if (!entries.has(name)) entries.set(name, entry);
    offset += 46 + nameLength + view.getUint16(offset + 30, true) + view.getUint16(offset + 32, true);
  }
  if (uncompressed > limits.maxUncompressedBytes) {
    return documentFailure('too_large', `DOCX declares ${uncompressed} uncompressed bytes; the limit is ${limits.maxUncompressedBytes}`);
  }

  const read = (name: string): DocumentResult<Uint8Array> => {
    const entry = entries.get(name);
    if (!entry) return documentFailure('corrupt_document', `DOCX has no part ${name}`);
    const at = entry.localHeaderOffset;
    if (at + 30 > bytes.byteLength || view.getUint32(at, true) !== 0x04034b50) {
      return documentFailure('corrupt_document', `DOCX part ${name} has a damaged header`);
    }
    const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
    const data = bytes.subarray(start, start + entry.compressedSize);
    if (entry.method === 0) {
      if (data.byteLength !== entry.uncompressedSize) return documentFailure('corrupt_document', `DOCX part ${name} is truncated`);
      return documentOk(data);
    }
    if (entry.method !== 8) return documentFailure('corrupt_document', `DOCX part ${name} uses compression method ${entry.method}`);
    let inflated: Buffer;
    try {
      inflated = inflateRawSync(data, { maxOutputLength: entry.uncompressedSize + 1 });
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
        return documentFailure('too_large', `DOCX part ${name} inflates past its declared ${entry.uncompressedSize} bytes`);
      }
      return documentFailure('corrupt_document', `DOCX part ${name} cannot be inflated`);
    }
    if (inflated.byteLength !== entry.uncompressedSize) {
      return documentFailure(inflated.byteLength > entry.uncompressedSize ? 'too_large' : 'corrupt_document', `DOCX part ${name} inflates to ${inflated.byteLength} bytes, not the declared ${entry.uncompressedSize}`);
    }
    return documentOk(new Uint8Array(inflated.buffer, inflated.byteOffset, inflated.byteLength));
  };

  return documentOk({ entries: count, uncompressed, has: (name) => entries.has(name), read });
}
