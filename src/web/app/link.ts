import type { FastifyInstance } from 'fastify';
import { applicantOf, resumePath, type AppRouteDeps } from './context.ts';

/**
 * GET {app_url}/s/{session_id}: the signed link. The access hook has already checked the token
 * (from the link, then the cookie it set) and taken it out of the address; here the applicant is
 * sent on to where they left off — the first unfinished step, the check page, or, once
 * submitted, the status or follow-up page. Any browser with the link resumes the same way.
 */
export function registerLink(scope: FastifyInstance, deps: AppRouteDeps): void {
  scope.get('/s/:sessionId', { config: { auth: 'applicant' } }, async (request, reply) => {
    const { intake } = applicantOf(request);
    return reply.redirect(resumePath(deps.prefix, intake), 303);
  });
}
