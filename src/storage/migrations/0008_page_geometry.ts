import { sql } from 'kysely';
import type { Migration } from './index.ts';

export const pageGeometry: Migration = {
  id: '0008_page_geometry',
  async up(trx) {
    // The page's size in the unit its evidence boxes use: PDF points for text layers (and for
    // rendered-then-OCRed PDF pages, whose boxes are mapped back to points), image pixels for
    // PNG/JPEG scans. Null for plain text and DOCX, which have no pages to measure, and for pages
    // stored before this migration.
    await sql`alter table document_pages add column width real`.execute(trx);
    await sql`alter table document_pages add column height real`.execute(trx);
    await sql`alter table document_pages add column unit text check (unit in ('pt', 'px'))`.execute(trx);
  },
};
