/**
 * Walks the headers of a ustar archive (the format PGlite's `dumpDataDir` writes) without
 * extracting anything, so a restore can refuse a damaged database dump with a reason.
 *
 * PGlite's own loader must never see a damaged archive: when its untar finds a bad header it
 * retries the bytes as gzip through a DecompressionStream whose failure is an unhandled
 * rejection, which ends the process (seen with `loadDataDir` of plain garbage, Node 24).
 * What is checked: each header's checksum and `ustar` magic, sizes that fit in the archive,
 * no entry name that climbs out (`..`; PGlite's names start with `/`, its data directory), and the end-of-archive block (a dump
 * cut at a block boundary has valid headers and no end).
 */
const BLOCK = 512;

export type TarCheck = { ok: true; entries: number } | { ok: false; reason: string };

export function checkTarArchive(tar: Uint8Array): TarCheck {
  let offset = 0;
  let entries = 0;
  while (offset + BLOCK <= tar.byteLength) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) {
      return entries > 0 ? { ok: true, entries } : { ok: false, reason: 'the archive holds no files' };
    }
    const at = `header ${entries + 1} (byte ${offset})`;
    if (ascii(header, 257, 5) !== 'ustar') return { ok: false, reason: `${at} is not a ustar header` };
    const stored = octal(header, 148, 8);
    if (stored === undefined || stored !== headerChecksum(header)) return { ok: false, reason: `${at} fails its checksum` };
    const size = octal(header, 124, 12);
    if (size === undefined) return { ok: false, reason: `${at} has an unreadable size` };
    const prefix = ascii(header, 345, 155);
    const name = prefix ? `${prefix}/${ascii(header, 0, 100)}` : ascii(header, 0, 100);
    if (name.split('/').includes('..')) return { ok: false, reason: `${at} names a path outside the archive: ${name}` };
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (offset > tar.byteLength) return { ok: false, reason: `${at} (${name}) runs past the end: the archive is truncated` };
    entries++;
  }
  return { ok: false, reason: `the archive is truncated after ${entries} files (no end-of-archive block)` };
}

/** A NUL-terminated text field. */
function ascii(block: Uint8Array, start: number, length: number): string {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return Buffer.from(end === -1 ? field : field.subarray(0, end)).toString('latin1');
}

/** An octal number field (NUL or space terminated); undefined when it is not one. */
function octal(block: Uint8Array, start: number, length: number): number | undefined {
  const text = ascii(block, start, length).trim();
  return /^[0-7]+$/.test(text) ? Number.parseInt(text, 8) : undefined;
}

/** The sum of the header's bytes with the checksum field read as spaces. */
function headerChecksum(header: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
  return sum;
}
