import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerFollowUps } from '../../src/domain/intake/follow-ups.ts';
import { saveFormAnswers, submitIntake } from '../../src/domain/intake/submit-intake.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { newSession, withExampleCaseTypes } from '../support/fixtures.ts';
import { addProcessedDocument, answerAndSubmit, drainCaseJobs, eventTypes } from './engine-fixtures.ts';

/**
 * Hardening §6: session_id is public (webhook envelopes, case events), so the applicant
 * operations must demand the signed link's token as well, and refuse without writing anything.
 */
describeEachBackend('applicant operations require the session token', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  beforeAll(async () => {
    t = await createTestApp(backend);
    ws = await t.workspace();
    await withExampleCaseTypes(t, ws.orgId);
  });
  afterAll(() => t.close());

  const answers = { full_name: 'Jane Doe', email: 'jane@example.com', date_of_birth: '1990-01-01' };
  const badTokens = [
    ['no token', ''],
    ['a wrong token', 'A'.repeat(43)],
    ['a token of another session', undefined],
  ] as const;

  for (const [label, bad] of badTokens) {
    describe(`with ${label}`, () => {
      it('refuses saving answers, submitting and answering follow-ups, and stores nothing', async () => {
        const s = await newSession(t, ws, 'income_verification');
        const token = bad ?? (await newSession(t, ws, 'income_verification')).token;
        const proof = { sessionId: s.session_id, token, traceId: 'test' };

        expect(await saveFormAnswers(t.ctx, { ...proof, answers })).toMatchObject({ ok: false, code: 'forbidden' });
        expect(await submitIntake(t.ctx, proof)).toMatchObject({ ok: false, code: 'forbidden' });
        expect(await answerFollowUps(t.ctx, { ...proof, answers: { gross_pay: '1.00' } })).toMatchObject({ ok: false, code: 'forbidden' });

        const row = await t.ctx.db.selectFrom('cases').select('structured_inputs').where('case_id', '=', s.case_id).executeTakeFirstOrThrow();
        expect(row.structured_inputs).toEqual({});
        const session = await t.ctx.db.selectFrom('sessions').select('status').where('session_id', '=', s.session_id).executeTakeFirstOrThrow();
        expect(session.status).toBe('open');
        expect(await eventTypes(t, s.case_id)).not.toContain('intake.submitted');
      });
    });
  }

  it('refuses a session id that is not a UUID without looking it up', async () => {
    expect(await submitIntake(t.ctx, { sessionId: "x' or 1=1 --\u0000", token: 'whatever', traceId: 'test' })).toMatchObject({ ok: false, code: 'forbidden' });
  });

  it('accepts the right token for each operation', async () => {
    const s = await newSession(t, ws, 'income_verification');
    await addProcessedDocument(t, s.case_id, 'pay_stub', { employee_name: 'Jane Doe', pay_date: new Date().toISOString().slice(0, 10), gross_pay: null });
    expect(await answerAndSubmit(t, s, answers)).toMatchObject({ ok: true });
    await drainCaseJobs(t);
    const answered = await answerFollowUps(t.ctx, { sessionId: s.session_id, token: s.token, answers: { gross_pay: '2100.00' }, traceId: 'test' });
    expect(answered).toMatchObject({ ok: true, value: { open_fact_ids: [] } });
  });
});
