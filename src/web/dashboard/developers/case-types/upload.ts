import type { FastifyMultipartAttachFieldsToBodyOptions } from '@fastify/multipart';
import { z } from 'zod';
import { putCaseType } from '../../../../domain/case-types/case-types.ts';
import { formText } from '../../../page-route.ts';
import { tenantOf } from '../../context.ts';
import { dashboardRoute } from '../../route.ts';
import { flashDeps, setFlash } from '../flash.ts';
import { CASE_TYPES_PATH, showCaseTypes } from './list.ts';

/** Case types are small JSON documents; the examples are under 10 KiB. */
const MAX_DEFINITION_BYTES = 512 * 1024;

/**
 * The one multipart form of the dashboard: its parser is registered, with these limits, in a scope
 * holding only this page. Fields are parsed into the body before the CSRF check reads `_csrf`.
 */
export const CASE_TYPE_UPLOAD_PARSER: FastifyMultipartAttachFieldsToBodyOptions = {
  attachFieldsToBody: 'keyValues',
  limits: { fileSize: MAX_DEFINITION_BYTES, files: 1, fields: 4, fieldSize: MAX_DEFINITION_BYTES },
};

/** POST /dashboard/developers/case-types: a case type as a JSON file or pasted text, checked as `dossier case-type put` checks it. */
export const caseTypeUploadPost = dashboardRoute({
  method: 'POST',
  url: '/developers/case-types',
  auth: 'admin',
  // `keyValues` makes the multipart body a plain object of parts, so it is declared like a form's:
  // the file's bytes (a buffer; text when sent as a field), or the pasted text.
  body: z.object({ definition_file: z.unknown().optional(), definition_text: formText }),
  handler: async ({ request, reply, body, deps }) => {
    const file = body.definition_file;
    const fileText = Buffer.isBuffer(file) ? file.toString('utf8') : typeof file === 'string' ? file : '';
    const text = fileText.trim() !== '' ? fileText : body.definition_text;
    if (text.trim() === '') return showCaseTypes(request, reply, deps, { text, problems: [{ path: '$', message: 'Choose a JSON file or paste the case type' }] });
    let definition: unknown;
    try {
      definition = JSON.parse(text);
    } catch (err) {
      return showCaseTypes(request, reply, deps, { text, problems: [{ path: '$', message: `This is not valid JSON: ${(err as Error).message}` }] });
    }
    const tenant = tenantOf(request);
    const put = await putCaseType(deps.ctx, { orgId: tenant.orgId, environment: tenant.environment, definition });
    if (!put.ok) return showCaseTypes(request, reply, deps, { text, problems: put.problems });
    const v = put.value;
    const stored = v.version_created ? `${v.case_type_id} is stored as version ${v.workflow_version}.` : `${v.case_type_id} is unchanged in behaviour: still version ${v.workflow_version}.`;
    const warned = v.warnings.length > 0 ? ` ${v.warnings.length} ${v.warnings.length === 1 ? 'language has' : 'languages have'} missing translations: see the case type's page.` : '';
    setFlash(reply, request, flashDeps(deps), { kind: 'notice', text: `${stored}${warned}` });
    return reply.redirect(CASE_TYPES_PATH, 303);
  },
});
