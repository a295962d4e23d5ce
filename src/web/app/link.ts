import { applicantOf, resumePath } from './context.ts';
import { appRoute, sessionParams } from './route.ts';

/**
 * GET {app_url}/s/{session_id}: the signed link. The access hook has already checked the token
 * (from the link, then the cookie it set) and taken it out of the address; here the applicant is
 * sent on to where they left off — the first unfinished step, the check page, or, once
 * submitted, the status or follow-up page. Any browser with the link resumes the same way.
 */
export const linkPage = appRoute({
  method: 'GET',
  url: '/s/:sessionId',
  auth: 'applicant',
  params: sessionParams,
  handler: async ({ request, reply, deps }) => {
    const { intake } = applicantOf(request);
    return reply.redirect(resumePath(deps.prefix, intake), 303);
  },
});
