import { applicantOf } from './context.ts';
import { appRoute, sessionParams } from './route.ts';
import { stageOf } from './status.ts';

/** GET …/status.json: the stage the status page's script polls, to swap its content when reading is done. */
export const statusJsonPage = appRoute({
  method: 'GET',
  url: '/s/:sessionId/status.json',
  auth: 'applicant',
  params: sessionParams,
  handler: async ({ request, reply }) => {
    const { intake } = applicantOf(request);
    return reply.header('cache-control', 'no-store').send({ stage: stageOf(intake) });
  },
});
