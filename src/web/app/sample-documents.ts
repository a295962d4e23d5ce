import { z } from 'zod';
import type { UploadNode } from '../../domain/case-types/definition.ts';
import { uploadSampleDocument } from '../../domain/samples/applicant-sample.ts';
import { SAMPLE_OUTCOMES, type SampleOutcome } from '../../domain/samples/sample-url.ts';
import { formText } from '../page-route.ts';
import { sendPage } from '../render.ts';
import { applicantOf, labelParams, paths } from './context.ts';
import { sendAppError } from './errors.ts';
import { uploadPage } from './step-upload.ts';
import { appRoute, stepParams } from './route.ts';

/** The sample form: the document kind it is for and the outcome chosen (unknown ones fall back). */
const sampleForm = z.object({ kind: formText, outcome: formText });

/** POST …/upload/:nodeId/sample: draws the chosen sample and uploads it; refusals show on the upload page as a file's would. */
export const sampleDocumentPage = appRoute({
  method: 'POST',
  url: '/s/:sessionId/upload/:nodeId/sample',
  auth: 'applicant',
  params: stepParams,
  body: sampleForm,
  handler: async ({ request, reply, deps, params, body }) => {
    const a = applicantOf(request);
    const p = paths(deps.prefix, a.intake.session_id);
    if (a.intake.status !== 'open') return reply.redirect(p.status, 303);
    const node = a.intake.definition.workflow.nodes.find((n): n is UploadNode => n.type === 'upload' && n.node_id === params.nodeId);
    // A live session has no samples: the route is as absent as any unknown address.
    if (!node || a.intake.environment !== 'test') return sendAppError(request, reply, deps, 'not_found');
    const kind = node.documents.find((k) => k.document_kind === body.kind) ?? node.documents[0]!;
    const chosen = body.outcome;
    const outcome: SampleOutcome = (SAMPLE_OUTCOMES as readonly string[]).includes(chosen) ? (chosen as SampleOutcome) : 'all_facts';
    const uploaded = await uploadSampleDocument(deps.ctx, { ...a.proof, documentKind: kind.document_kind, outcome, traceId: String(request.id) });
    if (!uploaded.ok) return uploaded.code === 'forbidden' ? sendAppError(request, reply, deps, 'forbidden') : sendAppError(request, reply, deps, 'not_found');
    if (uploaded.value.kind === 'refused') {
      if (uploaded.value.problem === 'closed') return reply.redirect(p.status, 303);
      const text = a.t(`upload.error.${uploaded.value.problem}`, { ...labelParams(kind.label), types: 'PDF', max: kind.max_files });
      return sendPage(reply, uploadPage(deps, a, { node, errors: [{ href: `sample-${kind.document_kind}`, text }] }), 409);
    }
    return reply.redirect(`${p.step(node)}?added=${encodeURIComponent(uploaded.value.doc_id)}`, 303);
  },
});
