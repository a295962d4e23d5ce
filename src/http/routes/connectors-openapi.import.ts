import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { connectorAuthSchema } from '../../domain/connectors/manifest.ts';
import { importOpenApiConnector } from '../../domain/connectors/openapi-import.ts';
import { unwrap } from '../../domain/errors.ts';
import { authOf } from '../plugins/authenticate.ts';
import { errorResponses } from '../schemas/error.ts';
import { withErrorCodes } from '../validation.ts';
import { connectorViewSchema } from './connector-schemas.ts';

const importBody = withErrorCodes(
  z.object({
    connector_key: z.string().max(200).meta({ description: 'The key to store the generated connector under.', example: 'petstore' }),
    openapi_url: z.string().max(2000).optional().meta({ description: 'Fetched with the SSRF-safe client: public https, at most 5 MiB and 10 s, no redirects.' }),
    openapi_json: z.string().optional().meta({ description: 'The document as a JSON string.' }),
    openapi: z.record(z.string(), z.unknown()).optional().meta({ description: 'The document as an object.' }),
    name: z.string().trim().min(1).max(200).optional().meta({ description: 'Default: the document’s info.title.' }),
    auth: connectorAuthSchema.optional().meta({ description: 'Default: mapped from the document’s security schemes (bearer, apiKey in a header, basic, none); required for OAuth2 (a static token as bearer).' }),
    base_url: z.string().max(2000).optional().meta({ description: 'Overrides the document’s servers.' }),
    include_operations: z.array(z.string().min(1).max(200)).max(500).optional().meta({ description: 'Only these operationIds (derived ones included).' }),
  }).meta({
    example: { connector_key: 'loan_origination', openapi_url: 'https://los.example.com/openapi.json', auth: { type: 'bearer', secret: 'los_live_token' } },
  }),
  {
    connector_key: { missing: 'missing_connector_key', invalid: 'invalid_connector_payload' },
    openapi_url: { invalid: 'openapi_fetch_failed' },
    openapi_json: { invalid: 'invalid_openapi_spec' },
    openapi: { invalid: 'invalid_openapi_spec' },
    name: { invalid: 'invalid_connector_payload' },
    auth: { invalid: 'invalid_connector_payload' },
    base_url: { invalid: 'invalid_connector_payload' },
  },
);

const importResult = z
  .object({
    ...connectorViewSchema.shape,
    skipped_operations: z
      .array(z.object({ operation_id: z.string(), reason: z.string() }))
      .meta({ description: 'Operations of the document left out of the connector, and why.' }),
  })
  .meta({ id: 'ConnectorImport' });

/** POST /api/v1/connectors/openapi (issue 14): a connector generated from an OpenAPI 3.0/3.1 JSON document. */
export const importOpenApiConnectorRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/api/v1/connectors/openapi',
    {
      config: { auth: 'connectors:write' },
      schema: {
        operationId: 'importOpenApiConnector',
        summary: 'Generate a connector from an OpenAPI document',
        description:
          'Give `connector_key` and exactly one of `openapi_url`, `openapi_json` or `openapi`. OpenAPI 3.0 and 3.1 JSON only: YAML is `openapi_yaml_not_supported`, ' +
          'Swagger 2.0 and other text `invalid_openapi_spec`, a URL that cannot be fetched `openapi_fetch_failed`, and a document no connector can be made of ' +
          '`invalid_openapi_connector` (no absolute https server, no operations left, colliding operationIds, only non-JSON request bodies, an unmappable security scheme). ' +
          'External `$ref`s are refused. Local `$ref`s are kept, never expanded: a stored schema that is one reference becomes its target, and the component schemas it reaches are bundled once each under its `$defs`. ' +
          'A document past a limit is `invalid_openapi_spec` naming it: nesting deeper than 128, more than 50,000 `$ref`s, more than 500,000 values once its non-schema `$ref`s are followed, a circular non-schema `$ref`, ' +
          'stored schemas over 1 MiB (name fewer operations in `include_operations`), or more than 10 s or 256 MB to read. ' +
          'Operations without an operationId get one from their method and path (`get_pets_petId`). 201 when created, 200 when replaced.',
        tags: ['Connectors'],
        security: [{ bearerAuth: [] }],
        body: importBody,
        response: { 200: importResult, 201: importResult, ...errorResponses() },
      },
    },
    async (request, reply) => {
      const key = authOf(request);
      const b = request.body;
      const imported = unwrap(
        await importOpenApiConnector({ ...ctx, http: ctx.outbound.connectors }, {
          orgId: key.orgId,
          environment: key.environment,
          connector_key: b.connector_key,
          openapi_url: b.openapi_url,
          openapi_json: b.openapi_json,
          openapi: b.openapi,
          name: b.name,
          auth: b.auth,
          base_url: b.base_url,
          include_operations: b.include_operations,
        }),
      );
      reply.code(imported.created ? 201 : 200);
      return { ...imported.connector, skipped_operations: imported.skipped_operations };
    },
  );
};
