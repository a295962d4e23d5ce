import { z } from 'zod';
import { ERROR_CODES } from '../../domain/errors.ts';

export const errorEnvelopeSchema = z
  .object({
    error: z.object({
      type: z.string().meta({ description: 'Error family of spec §7.1.' }),
      code: z.enum(ERROR_CODES as [string, ...string[]]).meta({ description: 'Catalog code of spec §7.2.' }),
      message: z.string().meta({ description: 'Human-readable explanation.' }),
      request_id: z.string().meta({ description: 'Equals the X-Request-Id response header.' }),
      param: z.string().optional().meta({ description: 'The request field at fault (`external_case_id`, `prefill.full_name`, `limit`), present when one field is.' }),
    }),
  })
  .meta({
    id: 'Error',
    description: 'Every error response has this shape.',
    example: {
      error: {
        type: 'authentication_error',
        code: 'invalid_api_key',
        message: 'No API key provided. Send it as "Authorization: Bearer <API_KEY>".',
        request_id: 'req_4f9KxY0bQ2mN8pR1sT6uV3wZ',
      },
    },
  });

/** The error responses every authenticated route can give, plus any extra statuses it names. */
export function errorResponses(...extra: number[]): Record<number, typeof errorEnvelopeSchema> {
  const statuses = new Set([400, 401, 403, 429, 500, ...extra]);
  return Object.fromEntries([...statuses].sort((a, b) => a - b).map((s) => [s, errorEnvelopeSchema]));
}
