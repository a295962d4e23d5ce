import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../app-context.ts';
import { healthRoutes } from './health.ts';
import { openApiRoute } from './openapi.get.ts';
import { createSessionRoute } from './sessions.create.ts';
import { getCaseRoute } from './cases.get.ts';
import { listCaseEventsRoute } from './case-events.list.ts';
import { getCasePackageRoute } from './case-package.get.ts';
import { missingCaseIdRoutes } from './case-id-missing.ts';
import { caseFileRoute } from './case-file.get.ts';

/** Every route of the service, one file per operation. */
export const apiRoutes: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  await app.register(healthRoutes, { ctx });
  await app.register(openApiRoute);
  await app.register(createSessionRoute, { ctx });
  await app.register(getCaseRoute, { ctx });
  await app.register(listCaseEventsRoute, { ctx });
  await app.register(getCasePackageRoute, { ctx });
  await app.register(missingCaseIdRoutes);
  await app.register(caseFileRoute, { ctx });
};
