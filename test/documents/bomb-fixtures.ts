import { constants, crc32, deflateRawSync, deflateSync } from 'node:zlib';

/**
 * Hostile documents, written byte by byte here so each one is exactly the attack it names.
 *
 * Inflating gigabytes is what the attacks do; generating them must not, so the huge streams are
 * one deflate block repeated: a chunk compressed with a sync flush ends byte-aligned and refers
 * only to itself, so N copies back to back are a valid stream of N × the chunk.
 */
function repeatedDeflate(chunkBytes: number, copies: number, fill = 0x20): Buffer {
  const chunk = deflateRawSync(Buffer.alloc(chunkBytes, fill), { finishFlush: constants.Z_SYNC_FLUSH, level: 9 });
  const end = deflateRawSync(Buffer.alloc(0)); // an empty final block
  return Buffer.concat([...Array.from({ length: copies }, () => chunk), end]);
}

interface ZipPart {
  name: string;
  /** Stored as deflate of these bytes, with their true size and CRC. */
  data?: Buffer;
  /** Already raw-deflated content, with the size and CRC the archive claims for it. */
  deflated?: { bytes: Buffer; declaredSize: number };
}

/** A ZIP archive (no ZIP64, no data descriptors) from parts; sizes are whatever the part says. */
export function zipArchive(parts: readonly ZipPart[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = Buffer.from(part.name, 'utf8');
    const compressed = part.deflated ? part.deflated.bytes : deflateRawSync(part.data!);
    const size = part.deflated ? part.deflated.declaredSize : part.data!.byteLength;
    const crc = part.deflated ? 0x12345678 : crc32(part.data!);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.byteLength, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.byteLength, 26);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(8, 10);
    header.writeUInt32LE(crc, 16);
    header.writeUInt32LE(compressed.byteLength, 20);
    header.writeUInt32LE(size, 24);
    header.writeUInt16LE(name.byteLength, 28);
    header.writeUInt32LE(offset, 42);
    locals.push(local, name, compressed);
    central.push(header, name);
    offset += 30 + name.byteLength + compressed.byteLength;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.byteLength, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
const ROOT_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`;
const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const DOCUMENT_HEAD = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W}"><w:body>`;
const DOCUMENT_TAIL = '</w:body></w:document>';

/** A minimal DOCX (content types, root relationships, main document) around a body's XML. */
export function docxWithBody(bodyXml: string): Buffer {
  return zipArchive([
    { name: '[Content_Types].xml', data: Buffer.from(CONTENT_TYPES) },
    { name: '_rels/.rels', data: Buffer.from(ROOT_RELS) },
    { name: 'word/document.xml', data: Buffer.from(DOCUMENT_HEAD + bodyXml + DOCUMENT_TAIL) },
  ]);
}

/**
 * A DOCX whose main document declares 4 KB and inflates to `gigabytes` GB of whitespace inside
 * the body element: well-formed as far as anyone reads it, so only a size check can stop it.
 * About 1 MB of file per GB inflated.
 */
export function docxZipBomb(gigabytes = 8): Buffer {
  const head = deflateRawSync(Buffer.from(DOCUMENT_HEAD), { finishFlush: constants.Z_SYNC_FLUSH });
  const body = repeatedDeflate(16 * 1024 * 1024, gigabytes * 64);
  return zipArchive([
    { name: '[Content_Types].xml', data: Buffer.from(CONTENT_TYPES) },
    { name: '_rels/.rels', data: Buffer.from(ROOT_RELS) },
    { name: 'word/document.xml', deflated: { bytes: Buffer.concat([head, body]), declaredSize: 4096 } },
  ]);
}

/** A DOCX holding one table of `rows` × `columns` short cells ("r12c3"). */
export function docxLargeTable(rows: number, columns: number): Buffer {
  const parts: string[] = ['<w:p><w:r><w:t>Ledger export</w:t></w:r></w:p><w:tbl>'];
  for (let r = 0; r < rows; r++) {
    parts.push('<w:tr>');
    for (let c = 0; c < columns; c++) parts.push(`<w:tc><w:p><w:r><w:t>r${r}c${c}</w:t></w:r></w:p></w:tc>`);
    parts.push('</w:tr>');
  }
  parts.push('</w:tbl>');
  return docxWithBody(parts.join(''));
}

/**
 * A one-page PDF whose only content is a `side` × `side` grey image, flate-compressed (all white:
 * ~1 KB of stream per 1 MB of pixels). 40,000² is 1.6 gigapixels: 1.6 GB as grey, 6.4 GB once a
 * renderer expands it to RGBA.
 */
export function pdfWithHugeImage(side = 40_000): Buffer {
  const pixels = side * side;
  const chunk = 16 * 1024 * 1024;
  // zlib wrapper (FlateDecode) around the repeated raw stream; the Adler-32 is not checked by readers
  // that stop early, and the stream is never meant to be read to the end.
  const raw = repeatedDeflate(chunk, Math.ceil(pixels / chunk), 0xff);
  const stream = Buffer.concat([deflateSync(Buffer.alloc(0)).subarray(0, 2), raw, Buffer.alloc(4)]);
  const content = Buffer.from('q 612 0 0 792 0 0 cm /Im0 Do Q');
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
    Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>'),
    Buffer.concat([Buffer.from(`<< /Length ${content.byteLength} >>\nstream\n`), content, Buffer.from('\nendstream')]),
    Buffer.concat([
      Buffer.from(`<< /Type /XObject /Subtype /Image /Width ${side} /Height ${side} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length ${stream.byteLength} >>\nstream\n`),
      stream,
      Buffer.from('\nendstream'),
    ]),
  ];
  const chunks: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let length = chunks[0]!.byteLength;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(length);
    const object = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
    chunks.push(object);
    length += object.byteLength;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  chunks.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`));
  return Buffer.concat(chunks);
}
