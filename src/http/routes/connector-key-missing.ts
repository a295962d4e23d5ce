import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../domain/errors.ts';

/**
 * `/api/v1/connectors/` with an empty key segment answers `missing_connector_key` (issue 14)
 * rather than a bare 404, as `/api/v1/cases/` answers `missing_case_id`.
 */
export const missingConnectorKeyRoutes: FastifyPluginAsyncZod = async (app) => {
  const missing = async () => {
    throw new AppError('missing_connector_key', 'The connector key path segment is empty: use /api/v1/connectors/{connector_key}.');
  };
  app.get('/api/v1/connectors/', { config: { auth: 'connectors:read' }, schema: { hide: true } }, missing);
  app.put('/api/v1/connectors/', { config: { auth: 'connectors:write' }, schema: { hide: true } }, missing);
  app.delete('/api/v1/connectors/', { config: { auth: 'connectors:write' }, schema: { hide: true } }, missing);
};
