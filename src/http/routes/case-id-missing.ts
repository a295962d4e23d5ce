import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../domain/errors.ts';

/**
 * `/api/v1/cases/` with an empty case id segment answers `missing_case_id` (spec §4.1) rather
 * than a bare 404, so a client that lost its id learns what is wrong.
 */
export const missingCaseIdRoutes: FastifyPluginAsyncZod = async (app) => {
  const missing = async () => {
    throw new AppError('missing_case_id', 'The case id path segment is empty: use /api/v1/cases/{case_id}.');
  };
  for (const url of ['/api/v1/cases/', '/api/v1/cases//events', '/api/v1/cases//package']) {
    app.get(url, { config: { auth: 'cases:read' }, schema: { hide: true } }, missing);
  }
};
