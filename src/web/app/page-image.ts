import { z } from 'zod';
import { readApplicantPageImage } from '../../domain/intake/applicant-confirm.ts';
import { applicantOf } from './context.ts';
import { sendAppError } from './errors.ts';
import { appRoute } from './route.ts';

/** `…/documents/:docId/pages/:page`, the page counted from 1; a page that is not a whole number names nothing (the app's 404 page). */
const pageImageParams = z.object({ sessionId: z.string(), docId: z.string(), page: z.string() });

/**
 * GET …/documents/{doc}/pages/{n}: a page image of the applicant's own file, which the confirm
 * page crops around each value it read (issue 26); on the session cookie like every page.
 */
export const pageImagePage = appRoute({
  method: 'GET',
  url: '/s/:sessionId/documents/:docId/pages/:page',
  auth: 'applicant',
  params: pageImageParams,
  handler: async ({ request, reply, deps, params }) => {
    const a = applicantOf(request);
    const { docId, page } = params;
    const pageIndex = Number(page) - 1;
    if (!Number.isInteger(pageIndex) || pageIndex < 0) return sendAppError(request, reply, deps, 'not_found');
    const image = await readApplicantPageImage(deps.ctx, { intake: a.intake, docId, pageIndex });
    if (!image.ok) return sendAppError(request, reply, deps, 'not_found');
    return reply.type(image.value.content_type).header('cache-control', 'private, max-age=3600').header('x-content-type-options', 'nosniff').send(image.value.bytes);
  },
});
