import { afterAll, beforeAll, expect, it } from 'vitest';
import { answerFollowUps } from '../../src/domain/intake/follow-ups.ts';
import { saveFormAnswers } from '../../src/domain/intake/submit-intake.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { newSession, withExampleCaseTypes } from '../support/fixtures.ts';
import { addProcessedDocument, answerAndSubmit, drainCaseJobs } from './engine-fixtures.ts';

/**
 * Issue 24 §2: the form rules are the domain's, so `saveFormAnswers` called directly (not through
 * the applicant app) refuses what the app would refuse, with a catalog validation error naming
 * each field's problem, and writes nothing.
 */
describeEachBackend('saveFormAnswers applies the form rules to every caller', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  beforeAll(async () => {
    t = await createTestApp(backend);
    ws = await t.workspace();
    await withExampleCaseTypes(t, ws.orgId);
  });
  afterAll(() => t.close());

  const inputsOf = async (caseId: string) => (await t.ctx.db.selectFrom('cases').select('structured_inputs').where('case_id', '=', caseId).executeTakeFirstOrThrow()).structured_inputs;

  it('refuses an invalid email called directly, and stores nothing', async () => {
    const s = await newSession(t, ws, 'income_verification');
    const saved = await saveFormAnswers(t.ctx, { sessionId: s.session_id, token: s.token, traceId: 'test', answers: { full_name: 'Jane Doe', email: 'jane@' } });
    expect(saved).toEqual({ ok: false, code: 'invalid_request', message: 'Some answers are not valid: email (invalid_email).', problems: [{ field_id: 'email', code: 'invalid_email' }] });
    expect(await inputsOf(s.case_id)).toEqual({});
  });

  // Regression: PostgreSQL refuses NUL in JSON text, so a NUL in an answer was a 500 from the row write.
  it('refuses a NUL in a text answer as a field problem, never a failed write', async () => {
    const s = await newSession(t, ws, 'income_verification');
    const saved = await saveFormAnswers(t.ctx, { sessionId: s.session_id, token: s.token, traceId: 'test', answers: { full_name: 'Jane\u0000Doe' } });
    expect(saved).toMatchObject({ ok: false, code: 'invalid_request', problems: [{ field_id: 'full_name', code: 'control_characters' }] });
    expect(await inputsOf(s.case_id)).toEqual({});
  });

  it('stores answers normalised: an amount as typed, a date from its parts', async () => {
    const s = await newSession(t, ws, 'income_verification');
    const saved = await saveFormAnswers(t.ctx, {
      sessionId: s.session_id,
      token: s.token,
      traceId: 'test',
      answers: { full_name: ' Jane Doe ', email: 'jane@example.com', date_of_birth: { day: '7', month: '3', year: '1990' }, monthly_income: '$4,200' },
    });
    expect(saved.ok).toBe(true);
    expect(await inputsOf(s.case_id)).toEqual({ full_name: 'Jane Doe', email: 'jane@example.com', date_of_birth: '1990-03-07', monthly_income: '4200.00' });
  });

  it('refuses a follow-up answer its fact’s type would refuse', async () => {
    const s = await newSession(t, ws, 'income_verification');
    await addProcessedDocument(t, s.case_id, 'pay_stub', { employee_name: 'Jane Doe', gross_pay: null, pay_date: t.clock.now().toISOString().slice(0, 10) });
    await answerAndSubmit(t, s, { full_name: 'Jane Doe', email: 'jane@example.com', date_of_birth: '1990-01-01' });
    await drainCaseJobs(t);
    const proof = { sessionId: s.session_id, token: s.token, traceId: 'test' };
    expect(await answerFollowUps(t.ctx, { ...proof, answers: { gross_pay: 'lots' } })).toMatchObject({ ok: false, code: 'invalid_request', problems: [{ field_id: 'gross_pay', code: 'invalid_money' }] });
    expect(await answerFollowUps(t.ctx, { ...proof, answers: { gross_pay: ' ' } })).toMatchObject({ ok: false, problems: [{ field_id: 'gross_pay', code: 'required' }] });
    expect(await answerFollowUps(t.ctx, { ...proof, answers: { gross_pay: '2,150' } })).toMatchObject({ ok: true });
    const fact = await t.ctx.db.selectFrom('facts').select(['value', 'source']).where('case_id', '=', s.case_id).where('fact_id', '=', 'gross_pay').executeTakeFirstOrThrow();
    expect(fact).toEqual({ value: '2150.00', source: 'applicant_follow_up' });
  });
});
