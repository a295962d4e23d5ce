import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerFollowUps } from '../../src/domain/intake/follow-ups.ts';
import { expireSessions } from '../../src/domain/cases/expire-sessions.ts';
import { ManualClock } from '../../src/ports/clock.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { withExampleCaseTypes } from '../support/fixtures.ts';
import { addProcessedDocument, answerAndSubmit, drainCaseJobs, eventTypes, newSession, readCase } from './engine-fixtures.ts';

const TODAY = '2026-06-15';

describeEachBackend('case engine end to end', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  const clock = new ManualClock(`${TODAY}T12:00:00.000Z`);
  beforeAll(async () => {
    t = await createTestApp(backend, { clock });
    ws = await t.workspace();
    await withExampleCaseTypes(t, ws.orgId);
  });
  afterAll(() => t.close());

  const api = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${ws.key}` }, ...(payload ? { payload: payload as Record<string, unknown> } : {}) });

  const incomeAnswers = { full_name: 'Jane Doe', email: 'jane@example.com', date_of_birth: '1990-01-01' };

  describe('system_of_action (income verification)', () => {
    it('passes its gates, stops at the review node, and completes on an approval', async () => {
      const s = await newSession(t, ws, 'income_verification');
      await addProcessedDocument(t, s.case_id, 'pay_stub', { employee_name: 'Doe, Jane', employer_name: 'Acme', pay_date: '2026-06-01', gross_pay: '2500.00' });
      const submitted = await answerAndSubmit(t, s, incomeAnswers);
      expect(submitted).toMatchObject({ ok: true, value: { runtime_status: 'gate_ready' } });
      expect((await readCase(t, ws, s.case_id)).queue_row).toMatchObject({ queue_category: 'processing', why_here_code: 'awaiting_gate_evaluation' });

      await drainCaseJobs(t);
      const c = await readCase(t, ws, s.case_id);
      expect(c.runtime_status).toBe('ready_for_review');
      expect(c.workspace).toMatchObject({ current_node_id: 'review', current_node_title: 'Underwriter review' });
      expect(c.queue_row).toMatchObject({ queue_category: 'review', queue_status: 'ready', why_here_code: 'review_step_reached', blocking_items: [] });
      expect(c.workspace.operational_summary.primary_action).toMatchObject({ action: 'decide' });
      const name = c.workspace.facts.find((f: { fact_id: string }) => f.fact_id === 'employee_name');
      expect(name.verification_metadata).toEqual([
        expect.objectContaining({ rule_id: 'name_matches', type: 'matches_input', field_id: 'full_name', method: 'token_set', result: 'match', fact_value_normalized: 'doe jane', input_value_normalized: 'jane doe' }),
      ]);

      const decided = await api('POST', `/api/v1/cases/${s.case_id}/decision`, { decision: 'approve', reason: 'Looks right' });
      expect(decided.statusCode).toBe(200);
      expect(decided.json()).toMatchObject({ runtime_status: 'complete', case_status: 'approved', queue_row: { queue_category: 'done', why_here_code: 'completed_approved' } });
      expect(await eventTypes(t, s.case_id)).toEqual([
        'case.created', 'session.created', 'intake.answers_saved', 'intake.submitted', 'case.status_changed',
        'case.status_changed', 'case.status_changed', 'case.ready_for_review', 'case.status_changed', 'case.decided', 'case.completed',
      ]);
      const again = await api('POST', `/api/v1/cases/${s.case_id}/decision`, { decision: 'reject' });
      expect(again.statusCode).toBe(400);
      expect(again.json().error).toMatchObject({ code: 'invalid_request' });
      expect(again.json().error.message).toMatch(/already complete/);
    });

    it('sends a name mismatch to operator review as an exception, with the comparison recorded', async () => {
      const s = await newSession(t, ws, 'income_verification');
      await addProcessedDocument(t, s.case_id, 'pay_stub', { employee_name: 'John Smith', pay_date: '2026-06-10', gross_pay: '1800' });
      await answerAndSubmit(t, s, incomeAnswers);
      await drainCaseJobs(t);
      const c = await readCase(t, ws, s.case_id);
      expect(c.runtime_status).toBe('ready_for_review');
      expect(c.queue_row).toMatchObject({ queue_category: 'exception', why_here_code: 'gate_failed', blocking_fact_ids: ['employee_name'] });
      expect(c.workspace.current_gate_id).toBe('checks');
      expect(c.queue_row.blocking_items).toEqual([expect.objectContaining({ kind: 'rule', id: 'name_matches', why: "The name on the pay stub must match the applicant's name." })]);
      const fact = c.workspace.facts.find((f: { fact_id: string }) => f.fact_id === 'employee_name');
      expect(fact.reason_codes).toEqual(['input_mismatch']);
      expect(fact.verification_metadata[0]).toMatchObject({ result: 'mismatch', method: 'none' });
    });

    it('asks the applicant follow-up questions for missing facts, then moves on once answered', async () => {
      const s = await newSession(t, ws, 'income_verification');
      await addProcessedDocument(t, s.case_id, 'pay_stub', { employee_name: 'Jane Doe', pay_date: '2026-06-10', gross_pay: null });
      await answerAndSubmit(t, s, incomeAnswers);
      await drainCaseJobs(t);
      let c = await readCase(t, ws, s.case_id);
      expect(c.runtime_status).toBe('intake_in_progress');
      expect(c.queue_row).toMatchObject({ queue_category: 'follow_up', queue_status: 'waiting_on_applicant', why_here_code: 'awaiting_follow_up_answers', blocking_fact_ids: ['gross_pay'] });
      expect(c.workspace.next_action).toMatchObject({ actor: 'applicant', action: 'answer_follow_up', fact_ids: ['gross_pay'] });
      expect(c.workspace.operational_summary.has_needs_input_facts).toBe(true);
      expect(await eventTypes(t, s.case_id)).toContain('case.needs_input');
      const questions = await t.ctx.db.selectFrom('follow_up_questions').selectAll().where('case_id', '=', s.case_id).execute();
      expect(questions).toEqual([expect.objectContaining({ fact_id: 'gross_pay', status: 'open' })]);

      const wrong = await answerFollowUps(t.ctx, { sessionId: s.session_id, token: s.token, answers: { pay_date: '2026-06-01' }, traceId: 't' });
      expect(wrong).toMatchObject({ ok: false, code: 'invalid_request' });
      const answered = await answerFollowUps(t.ctx, { sessionId: s.session_id, token: s.token, answers: { gross_pay: '2100.00' }, traceId: 't' });
      expect(answered).toMatchObject({ ok: true, value: { open_fact_ids: [], runtime_status: 'gate_ready' } });
      await drainCaseJobs(t);
      c = await readCase(t, ws, s.case_id);
      expect(c.runtime_status).toBe('ready_for_review');
      expect(c.workspace.facts.find((f: { fact_id: string }) => f.fact_id === 'gross_pay')).toMatchObject({ value: '2100.00', status: 'resolved', source: 'applicant_follow_up' });
    });

    it('refuses an incomplete submission and says what is missing', async () => {
      const s = await newSession(t, ws, 'income_verification');
      const result = await answerAndSubmit(t, s, { full_name: 'Jane Doe' });
      expect(result).toMatchObject({ ok: false, code: 'invalid_request' });
      if (!result.ok) expect(result.message).toMatch(/email, date_of_birth, pay_stub are required/);
      expect((await readCase(t, ws, s.case_id)).runtime_status).toBe('intake_in_progress');
    });
  });

  describe('system_of_record (address proof)', () => {
    it('completes as decision_ready when every gate passes', async () => {
      const s = await newSession(t, ws, 'address_proof');
      await addProcessedDocument(t, s.case_id, 'utility_bill', { holder_name: 'Jane Doe', service_address: '1 Main St, Springfield', statement_date: '2026-05-20' });
      await answerAndSubmit(t, s, {});
      await drainCaseJobs(t);
      const c = await readCase(t, ws, s.case_id);
      expect(c).toMatchObject({ runtime_status: 'complete', case_status: 'decision_ready', queue_row: { queue_category: 'done', queue_status: 'closed', why_here_code: 'completed_decision_ready' } });
      expect(await eventTypes(t, s.case_id)).toContain('case.completed');
    });

    it('sends a failed gate to operator review, never to completion', async () => {
      const s = await newSession(t, ws, 'address_proof');
      await addProcessedDocument(t, s.case_id, 'utility_bill', { holder_name: 'Jane Doe', service_address: '1 Main St', statement_date: '2025-01-01' });
      await answerAndSubmit(t, s, {});
      await drainCaseJobs(t);
      const c = await readCase(t, ws, s.case_id);
      expect(c.runtime_status).toBe('ready_for_review');
      expect(c.queue_row).toMatchObject({ queue_category: 'exception', why_here_code: 'gate_failed', blocking_fact_ids: ['statement_date'] });
      expect(c.workspace.facts.find((f: { fact_id: string }) => f.fact_id === 'statement_date').reason_codes).toEqual(['older_than_allowed']);
      const rejected = await api('POST', `/api/v1/cases/${s.case_id}/decision`, { decision: 'reject', reason: 'Bill too old' });
      expect(rejected.json()).toMatchObject({ case_status: 'rejected', runtime_status: 'complete' });
    });
  });

  describe('decisions and corrections over HTTP', () => {
    it('refuses a decision on a case not in review with a clear 400, and validates the body', async () => {
      const s = await newSession(t, ws, 'income_verification');
      const res = await api('POST', `/api/v1/cases/${s.case_id}/decision`, { decision: 'approve' });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.message).toMatch(/not awaiting review: its runtime_status is intake_in_progress/);
      expect((await api('POST', `/api/v1/cases/${s.case_id}/decision`, { decision: 'maybe' })).json().error.code).toBe('invalid_request');
      expect((await api('POST', '/api/v1/cases/case_nope/decision', { decision: 'approve' })).statusCode).toBe(404);
      const reader = await t.createKey(ws.orgId, { scopes: ['cases:read'] });
      const forbidden = await t.app.inject({ method: 'POST', url: `/api/v1/cases/${s.case_id}/decision`, headers: { authorization: `Bearer ${reader.key}` }, payload: { decision: 'approve' } });
      expect(forbidden.statusCode).toBe(403);
    });

    it('corrects a fact with history and an event', async () => {
      const s = await newSession(t, ws, 'income_verification');
      await addProcessedDocument(t, s.case_id, 'pay_stub', { employee_name: 'Jane Doe', pay_date: '2026-06-10', gross_pay: '25000.00' });
      const res = await api('PATCH', `/api/v1/cases/${s.case_id}/facts/gross_pay`, { value: '2500.00', reason: 'Decimal misread' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ correction_id: expect.stringMatching(/^fc_/), fact: { fact_id: 'gross_pay', value: '2500.00', status: 'resolved', source: 'operator' } });
      const second = await api('PATCH', `/api/v1/cases/${s.case_id}/facts/gross_pay`, { value: null });
      expect(second.json().fact).toMatchObject({ value: null, status: 'needs_input' });
      const history = await t.ctx.db.selectFrom('fact_corrections').selectAll().where('case_id', '=', s.case_id).orderBy('created_at').orderBy('correction_id').execute();
      expect(history.map((h) => [h.previous_value, h.new_value, h.previous_source])).toEqual(
        expect.arrayContaining([
          ['25000.00', '2500.00', 'document_extraction'],
          ['2500.00', null, 'operator'],
        ]),
      );
      expect(await eventTypes(t, s.case_id)).toContain('fact.corrected');
      expect((await api('PATCH', `/api/v1/cases/${s.case_id}/facts/nope`, { value: 'x' })).statusCode).toBe(404);
      expect((await api('PATCH', `/api/v1/cases/${s.case_id}/facts/gross_pay`, { value: 'x', status: 'resolved', extra: 1 })).statusCode).toBe(400);
      expect((await api('PATCH', `/api/v1/cases/${s.case_id}/facts/gross_pay`, { value: null, status: 'resolved' })).statusCode).toBe(400);
    });
  });

  describe('expiry', () => {
    it('completes unsubmitted cases as abandoned when their session expires', async () => {
      const s = await newSession(t, ws, 'income_verification', { expires_in_seconds: 1800 });
      const submittedCase = await newSession(t, ws, 'address_proof', { expires_in_seconds: 1800 });
      await addProcessedDocument(t, submittedCase.case_id, 'utility_bill', { holder_name: 'A B', service_address: 'x', statement_date: '2026-06-01' });
      await answerAndSubmit(t, submittedCase, {});
      expect(await expireSessions(t.ctx)).toBe(0);
      clock.advance(1800_000);
      expect(await expireSessions(t.ctx)).toBeGreaterThanOrEqual(1);
      clock.set(`${TODAY}T12:00:00.000Z`);
      const c = await readCase(t, ws, s.case_id);
      expect(c).toMatchObject({ runtime_status: 'complete', case_status: 'abandoned', queue_row: { why_here_code: 'completed_abandoned' } });
      expect(c.workspace.intake_session.status).toBe('expired');
      const types = await eventTypes(t, s.case_id);
      expect(types.slice(-3)).toEqual(['session.expired', 'case.status_changed', 'case.completed']);
      expect((await readCase(t, ws, submittedCase.case_id)).case_status).not.toBe('abandoned');
      expect(await expireSessions(t.ctx)).toBe(0);
    });
  });

  describe('follow-ups past the session’s expiry', () => {
    it('withdraws the questions and sends the case to operator review', async () => {
      const s = await newSession(t, ws, 'income_verification', { expires_in_seconds: 1800 });
      await addProcessedDocument(t, s.case_id, 'pay_stub', { employee_name: 'Jane Doe', pay_date: '2026-06-10', gross_pay: null });
      await answerAndSubmit(t, s, incomeAnswers);
      await drainCaseJobs(t);
      expect((await readCase(t, ws, s.case_id)).queue_row.queue_category).toBe('follow_up');
      clock.advance(1800_000);
      expect(await expireSessions(t.ctx)).toBeGreaterThanOrEqual(1);
      await drainCaseJobs(t);
      clock.set(`${TODAY}T12:00:00.000Z`);
      const c = await readCase(t, ws, s.case_id);
      expect(c.runtime_status).toBe('ready_for_review');
      expect(c.queue_row).toMatchObject({ queue_category: 'exception', why_here_code: 'needs_input_without_applicant', blocking_fact_ids: ['gross_pay'] });
      expect(await eventTypes(t, s.case_id)).toContain('follow_up.expired');
      const questions = await t.ctx.db.selectFrom('follow_up_questions').select('status').where('case_id', '=', s.case_id).execute();
      expect(questions.map((q) => q.status)).toEqual(['withdrawn']);
    });
  });

  describe('GET /api/v1/cases (queue)', () => {
    it('lists queue rows that equal each case record’s queue_row, filtered and paged', async () => {
      const all = (await api('GET', '/api/v1/cases?limit=500')).json();
      expect(all.data.length).toBeGreaterThanOrEqual(8);
      for (const row of all.data.slice(0, 5)) {
        expect(row).toEqual((await readCase(t, ws, row.case_id)).queue_row);
      }
      const stamps = all.data.map((r: { sort_timestamp: string }) => r.sort_timestamp);
      expect(stamps).toEqual([...stamps].sort());

      const done = (await api('GET', '/api/v1/cases?queue_category=done')).json();
      expect(done.data.every((r: { queue_category: string }) => r.queue_category === 'done')).toBe(true);
      const review = (await api('GET', '/api/v1/cases?runtime_status=ready_for_review&case_type_id=address_proof')).json();
      expect(review.data.every((r: { runtime_status: string }) => r.runtime_status === 'ready_for_review')).toBe(true);

      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { data: { case_id: string }[]; next_cursor: string | null; has_more: boolean } = (await api('GET', `/api/v1/cases?limit=3${cursor ? `&starting_after=${cursor}` : ''}`)).json();
        seen.push(...page.data.map((r: { case_id: string }) => r.case_id));
        cursor = page.next_cursor;
        expect(page.has_more).toBe(cursor !== null);
      } while (cursor);
      expect(seen).toEqual(all.data.map((r: { case_id: string }) => r.case_id));

      expect((await api('GET', '/api/v1/cases?queue_category=nowhere')).json().error.code).toBe('invalid_request');
      expect((await api('GET', '/api/v1/cases?limit=0')).json().error.code).toBe('invalid_limit');
      expect((await api('GET', '/api/v1/cases?starting_after=zzz')).json().error.code).toBe('invalid_request');
      const other = await t.workspace();
      expect((await t.app.inject({ method: 'GET', url: '/api/v1/cases', headers: { authorization: `Bearer ${other.key}` } })).json().data).toEqual([]);
    });
  });
});
