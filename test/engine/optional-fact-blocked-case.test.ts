import { afterAll, beforeAll, expect, it } from 'vitest';
import { answerFollowUps } from '../../src/domain/intake/follow-ups.ts';
import { ManualClock } from '../../src/ports/clock.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { withExampleCaseTypes } from '../support/fixtures.ts';
import { addProcessedDocument, answerAndSubmit, drainCaseJobs, newSession, readCase } from './engine-fixtures.ts';

/**
 * Issue 26, item 5: a French income_verification pay stub had no employer name. Employer is
 * `required: false` and no gate reads it, yet once the applicant answered the follow-up questions
 * (pay date and gross pay only) the case landed in Exceptions with "Employer · Needs input ·
 * Blocking" and "Facts need input and there is no applicant to ask".
 */
describeEachBackend('regression: an optional fact blocked a case', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  const clock = new ManualClock('2026-06-15T12:00:00.000Z');
  beforeAll(async () => {
    t = await createTestApp(backend, { clock });
    ws = await t.workspace();
    await withExampleCaseTypes(t, ws.orgId);
  });
  afterAll(() => t.close());

  it('an optional fact without a value never blocks, and the applicant is not said to be missing', async () => {
    const s = await newSession(t, ws, 'income_verification', { locale: 'fr' });
    await addProcessedDocument(t, s.case_id, 'pay_stub', { employee_name: 'Jane Doe', employer_name: null, pay_date: null, gross_pay: null });
    await answerAndSubmit(t, s, { full_name: 'Jane Doe', email: 'jane@example.com', date_of_birth: '1990-01-01' });
    await drainCaseJobs(t);

    let c = await readCase(t, ws, s.case_id);
    // The follow-up page asks for pay date and gross pay, and the queue blocks on those two only.
    const questions = await t.ctx.db.selectFrom('follow_up_questions').select('fact_id').where('case_id', '=', s.case_id).orderBy('fact_id').execute();
    expect(questions.map((q) => q.fact_id)).toEqual(['gross_pay', 'pay_date']);
    expect(c.queue_row).toMatchObject({ queue_category: 'follow_up', why_here_code: 'awaiting_follow_up_answers', blocking_fact_ids: ['pay_date', 'gross_pay'] });

    const answered = await answerFollowUps(t.ctx, { sessionId: s.session_id, token: s.token, answers: { pay_date: '2026-06-10', gross_pay: '2100.00' }, traceId: 't' });
    expect(answered.ok).toBe(true);
    await drainCaseJobs(t);
    c = await readCase(t, ws, s.case_id);
    expect(c.runtime_status).toBe('ready_for_review');
    // Employer still needs input (it is shown as it is) but it blocks nothing.
    expect(c.workspace.facts.find((f: { fact_id: string }) => f.fact_id === 'employer_name')).toMatchObject({ status: 'needs_input', value: null });
    expect(c.workspace.summary.needs_input_count).toBe(1);
    expect(c.queue_row).toMatchObject({ queue_category: 'review', why_here_code: 'review_step_reached', blocking_fact_ids: [] });
    expect(c.queue_row.blocking_items).toEqual([]);
    expect(c.workspace.operational_summary.reason.why_here).not.toContain('no applicant');
  });
  // "No applicant to ask" where there is none stays covered by workflow.test.ts (follow-ups past the session's expiry).
});
