import { z } from 'zod';
import { AUTH_TYPES, connectorKeySchema, operationSchema } from '../../domain/connectors/manifest.ts';

/** Shared by the connector routes: the connector as every read answers it (the secret never, `secret_set` instead). */
export const connectorViewSchema = z
  .object({
    connector_key: z.string(),
    name: z.string(),
    base_url: z.string(),
    auth: z.object({
      type: z.enum(AUTH_TYPES),
      header_name: z.string().optional(),
      secret_set: z.boolean().meta({ description: 'Whether a secret is stored. The secret itself is write-only.' }),
    }),
    operations: z.array(operationSchema),
    version: z.number().int().meta({ description: '1 when created; each replacement adds one.' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({
    id: 'Connector',
    example: {
      connector_key: 'loan_origination',
      name: 'Loan origination system',
      base_url: 'https://los.example.com/api/v2',
      auth: { type: 'bearer', secret_set: true },
      operations: [
        {
          operation_id: 'createApplication',
          method: 'post',
          path: '/applications',
          summary: 'Create a loan application',
          parameters: [],
          request_body_schema: { type: 'object', properties: { applicant_name: { type: 'string' }, monthly_income: { type: 'number' } } },
        },
      ],
      version: 1,
      created_at: '2026-11-22T10:00:00.000Z',
      updated_at: '2026-11-22T10:00:00.000Z',
    },
  });

export const connectorKeyParams = z.object({
  connector_key: z.string().max(200).meta({ description: 'The connector key.', example: 'loan_origination' }),
});

export { connectorKeySchema };
