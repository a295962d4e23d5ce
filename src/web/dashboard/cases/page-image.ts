import { z } from 'zod';
import { readPageImage } from '../../../domain/console/page-images.ts';
import { unwrap } from '../../../domain/errors.ts';
import { tenantOf } from '../context.ts';
import { dashboardRoute } from '../route.ts';

/** GET /dashboard/cases/{case}/documents/{doc}/pages/{n}: a page image of the evidence viewer, rendered once and cached. */
export const pageImagePage = dashboardRoute({
  method: 'GET',
  url: '/cases/:case_id/documents/:doc_id/pages/:page',
  auth: 'operator',
  params: z.object({ case_id: z.string().min(1).max(100), doc_id: z.string().min(1).max(100), page: z.coerce.number().int().min(1).max(100_000) }),
  handler: async ({ request, reply, params, deps }) => {
    const { case_id: caseId, doc_id: docId, page } = params;
    const row = unwrap(await readPageImage(deps.ctx, { tenant: tenantOf(request), ref: { caseId, docId, pageIndex: page - 1 } }));
    const etag = `"${row.doc_id}-${row.page_index}-${row.created_at.getTime()}"`;
    // Personal data: the browser may keep it, but asks every time (an erased page then answers 404).
    reply.header('cache-control', 'private, no-cache').header('etag', etag).header('x-content-type-options', 'nosniff');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.type(row.content_type).send(Buffer.from(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength));
  },
});
