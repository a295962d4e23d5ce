import type { AppContext } from '../deps.ts';
import { findCaseByIdUnscoped } from '../../storage/cases.ts';
import { readSetting, writeSetting } from '../../storage/settings.ts';
import { saveFormAnswers, submitIntake } from '../intake/submit-intake.ts';
import { uploadApplicantDocument } from '../intake/applicant-intake.ts';
import { createSession } from '../sessions/create-session.ts';
import { demoPayStubPdf } from './demo-pay-stub.ts';

const DEMO_CASE_SETTING = 'demo_case';
export const DEMO_EXTERNAL_CASE_ID = 'DEMO-LOAN-0001';
const DEMO_APPLICANT = { full_name: 'Jane Doe', email: 'jane.doe@example.com', date_of_birth: '1990-04-12' };

export interface DemoCase {
  case_id: string;
  /** True when this call made it. */
  created: boolean;
}

/**
 * The demo case: an income verification made the way an applicant makes one — a hosted session,
 * the form answered, a pay stub uploaded through the applicant upload, the intake submitted — so
 * the worker reads the document and the case reaches the review queue with evidence-backed facts
 * for an operator to check and approve. Made once per deployment (its id is kept in settings);
 * `null` when it cannot be made (no applicant app address, or the monthly test-session allowance
 * spent), which leaves the rest of the demo usable.
 */
export async function ensureDemoCase(ctx: AppContext, demo: { org_id: string; key_id: string }): Promise<DemoCase | null> {
  const stored = await readSetting(ctx.db, DEMO_CASE_SETTING);
  if (stored) {
    const { case_id } = JSON.parse(stored) as { case_id: string };
    if (await findCaseByIdUnscoped(ctx.db, case_id)) return { case_id, created: false };
  }
  if (ctx.config.appUrl === null) return null;
  const request = {
    case_type_id: 'income_verification',
    external_case_id: DEMO_EXTERNAL_CASE_ID,
    external_applicant_id: 'demo-applicant-jane-doe',
    external_customer_id: 'demo-customer',
    prefill: { full_name: DEMO_APPLICANT.full_name },
  };
  // A fixed idempotency key: two `dossier demo` at once make one case, and a rerun after a crash
  // between here and the setting below finds the same session again.
  const created = await createSession(ctx, {
    key: { keyId: demo.key_id, orgId: demo.org_id, environment: 'test', scopes: ['*'], rateLimitPerMinute: null },
    idempotencyKey: 'demo-case',
    rawBody: request,
    request,
    traceId: 'cli:demo',
  });
  if (!created.ok || created.value.status !== 201) return null;
  const body = created.value.body as { case_id: string; session_id: string; signed_url: string };
  const token = new URL(body.signed_url).searchParams.get('token');
  if (!token) return null;
  const proof = { sessionId: body.session_id, token, traceId: 'cli:demo' };
  const now = ctx.clock.now();

  const saved = await saveFormAnswers(ctx, { ...proof, answers: DEMO_APPLICANT });
  // Already past the form: a concurrent `dossier demo` is doing the rest.
  if (saved.ok) {
    const bytes = await demoPayStubPdf({ now, employeeName: DEMO_APPLICANT.full_name });
    const uploaded = await uploadApplicantDocument(ctx, { ...proof, documentKind: 'pay_stub', filename: 'pay-stub-demo.pdf', bytes });
    if (uploaded.ok && uploaded.value.kind === 'uploaded') await submitIntake(ctx, proof);
  }
  await writeSetting(ctx.db, DEMO_CASE_SETTING, JSON.stringify({ case_id: body.case_id }), now);
  return { case_id: body.case_id, created: true };
}
