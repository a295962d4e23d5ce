import { z } from 'zod';
import { readOriginalFile } from '../../../domain/console/page-images.ts';
import { unwrap } from '../../../domain/errors.ts';
import { tenantOf } from '../context.ts';
import { dashboardRoute } from '../route.ts';

/** GET /dashboard/cases/{case}/documents/{doc}/file: the original file, as a download. */
export const documentFilePage = dashboardRoute({
  method: 'GET',
  url: '/cases/:case_id/documents/:doc_id/file',
  auth: 'operator',
  params: z.object({ case_id: z.string().min(1).max(100), doc_id: z.string().min(1).max(100) }),
  handler: async ({ request, reply, params, deps }) => {
    const { case_id: caseId, doc_id: docId } = params;
    const file = unwrap(await readOriginalFile(deps.ctx, { tenant: tenantOf(request), ref: { caseId, docId } }));
    const name = file.filename.replace(/[^\w.\- ]+/g, '_');
    return reply
      .header('cache-control', 'private, no-store')
      .header('content-disposition', `attachment; filename="${name}"`)
      .header('x-content-type-options', 'nosniff')
      .header('content-length', String(file.size))
      .type(file.mimeType)
      .send(file.stream);
  },
});
