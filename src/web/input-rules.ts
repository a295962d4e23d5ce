import type { FastifyInstance } from 'fastify';
import { AppError } from '../domain/errors.ts';
import { fieldWithNul, impossiblePathValue } from '../http/validation.ts';

/**
 * The API's rules for input no stored row can match, applied to both faces before any of their
 * own hooks (issue 23 §5: `GET /dashboard/cases/%00` and an applicant's `full_name=Jane%00Doe`
 * reached PostgreSQL, which refuses NUL in text, and came back as 500s whose log quoted the
 * answers). The rules are the API validator's own functions, not a copy:
 * - a path id that is too long or holds a control character names nothing: 404, before the
 *   access hooks, so no session or case is looked up with it;
 * - NUL in the query or in a form field is 400, once the body is parsed and before any handler.
 * Each face's error handler turns the catalog error into its own page.
 */
export function registerInputRules(scope: FastifyInstance): void {
  scope.addHook('onRequest', async (request) => {
    if (impossiblePathValue(request.params) !== undefined) throw new AppError('not_found', 'No page has this address.');
    const field = fieldWithNul(request.query);
    if (field !== undefined) throw new AppError('invalid_request', 'The address holds a character that is not allowed (NUL). Check it and try again.');
  });
  scope.addHook('preValidation', async (request) => {
    if (fieldWithNul(request.body) !== undefined) throw new AppError('invalid_request', 'What you sent holds a character that is not allowed (NUL). Remove it and try again.');
  });
}
