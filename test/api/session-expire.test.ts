import { NotFoundError, ValidationError, AuthorizationError, type Dossier } from '@dossier/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expireSessions } from '../../src/domain/cases/expire-sessions.ts';
import { saveFormAnswers, submitIntake } from '../../src/domain/intake/submit-intake.ts';
import { createEndpoint } from '../../src/domain/webhooks/endpoints.ts';
import { ManualClock } from '../../src/ports/clock.ts';
import { ApplicantAgent, linkPath } from '../support/applicant.ts';
import { dossierError, dossierFor } from '../support/dossier-client.ts';
import { newSession, withExampleCaseTypes } from '../support/fixtures.ts';
import { createTestApp, describeEachBackend, itOnPostgres, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { addProcessedDocument, answerAndSubmit, eventTypes, readCase } from '../engine/engine-fixtures.ts';

/** POST /api/v1/sessions/{session_id}/expire (issue 25, item 4), as an integrator calls it. */
describeEachBackend('POST /api/v1/sessions/{session_id}/expire', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let dossier: Dossier;
  const clock = new ManualClock('2026-06-15T12:00:00.000Z');

  beforeAll(async () => {
    // The endpoint is on loopback: nothing is sent in these tests, only the outbox rows are read.
    t = await createTestApp(backend, { clock, env: { DOSSIER_ALLOW_PRIVATE_NETWORK: 'true' } });
    ws = await t.workspace();
    dossier = dossierFor(t, ws);
    await withExampleCaseTypes(t, ws.orgId);
    const endpoint = await createEndpoint(t.ctx, { tenant: { orgId: ws.orgId, environment: 'test' }, url: 'http://127.0.0.1:9/hook', events: ['*'] });
    if (!endpoint.ok) throw new Error(endpoint.message);
  });
  afterAll(() => t.close());

  const outbox = async (caseId: string) => {
    // In the order of the case events they carry (delivery ids are random, and one transaction shares a created_at).
    const rows = await t.ctx.db
      .selectFrom('webhook_deliveries')
      .innerJoin('case_events', 'case_events.event_id', 'webhook_deliveries.event_id')
      .select(['webhook_deliveries.event_type', 'webhook_deliveries.payload'])
      .where('webhook_deliveries.case_id', '=', caseId)
      .orderBy('case_events.cursor')
      .execute();
    return rows.map((r) => ({ event_type: r.event_type, data: (JSON.parse(r.payload) as { data: Record<string, unknown> }).data }));
  };
  const expireRaw = (sessionId: string, key = ws.key) =>
    t.app.inject({ method: 'POST', url: `/api/v1/sessions/${encodeURIComponent(sessionId)}/expire`, headers: { authorization: `Bearer ${key}` } });

  it('expires an open session: its link answers 410 and the case completes abandoned', async () => {
    const s = await newSession(t, ws, 'income_verification', { external_case_id: 'loan-expire-1' });
    const agent = new ApplicantAgent(t);
    expect((await agent.open(s.signed_url)).first.statusCode).toBe(303);
    clock.advance(60_000);

    const expired = await dossier.sessions.expire(s.session_id);
    expect(expired.lastResponse.status).toBe(200);
    expect({ ...expired }).toEqual({
      session_id: s.session_id,
      case_id: s.case_id,
      signed_url: null,
      expires_at: clock.now().toISOString(),
      status: 'expired',
      case_type_id: 'income_verification',
      workflow_version: s.workflow_version,
      external_case_id: 'loan-expire-1',
      external_applicant_id: null,
      external_customer_id: null,
      created_at: s.created_at,
    });

    expect((await t.app.inject({ method: 'GET', url: linkPath(s.signed_url) })).statusCode).toBe(410);
    expect((await agent.get(`/app/s/${s.session_id}/form/applicant`)).statusCode).toBe(410);

    const c = await readCase(t, ws, s.case_id);
    expect(c).toMatchObject({ runtime_status: 'complete', case_status: 'abandoned', queue_row: { why_here_code: 'completed_abandoned' } });
    expect(c.workspace.intake_session.status).toBe('expired');
    expect((await eventTypes(t, s.case_id)).slice(-3)).toEqual(['session.expired', 'case.status_changed', 'case.completed']);
    expect(await outbox(s.case_id)).toEqual([
      { event_type: 'v1.session.expired', data: expect.objectContaining({ session_id: s.session_id, expired_at: clock.now().toISOString() }) },
      { event_type: 'v1.case.completed', data: expect.objectContaining({ case_status: 'abandoned' }) },
    ]);
  });

  it('ends an intake in progress the same way as one never started', async () => {
    const s = await newSession(t, ws, 'income_verification');
    const saved = await saveFormAnswers(t.ctx, { sessionId: s.session_id, token: s.token, answers: { full_name: 'Jane Doe' }, traceId: 'test' });
    expect(saved.ok).toBe(true);
    await addProcessedDocument(t, s.case_id, 'pay_stub', { employee_name: 'Jane Doe' });
    expect((await dossier.sessions.expire(s.session_id)).status).toBe('expired');
    expect(await readCase(t, ws, s.case_id)).toMatchObject({ runtime_status: 'complete', case_status: 'abandoned' });
    expect((await eventTypes(t, s.case_id)).slice(-3)).toEqual(['session.expired', 'case.status_changed', 'case.completed']);
  });

  it('answers the same session when called again, with no new events', async () => {
    const s = await newSession(t, ws, 'address_proof');
    const first = await dossier.sessions.expire(s.session_id);
    const events = await eventTypes(t, s.case_id);
    const deliveries = await outbox(s.case_id);
    clock.advance(5 * 60_000);
    const again = await dossier.sessions.expire(s.session_id);
    expect(again.lastResponse.status).toBe(200);
    expect({ ...again }).toEqual({ ...first });
    expect(await eventTypes(t, s.case_id)).toEqual(events);
    expect(await outbox(s.case_id)).toEqual(deliveries);
  });

  it('expires a session past its time that the sweep has not reached as of its own expiry, and the sweep then has nothing to do', async () => {
    const s = await newSession(t, ws, 'address_proof', { expires_in_seconds: 1800 });
    clock.advance(1800_000 + 45_000);
    const expired = await dossier.sessions.expire(s.session_id);
    expect(expired.expires_at).toBe(s.expires_at);
    expect((await outbox(s.case_id))[0]).toMatchObject({ event_type: 'v1.session.expired', data: { expired_at: s.expires_at } });
    expect(await expireSessions(t.ctx)).toBe(0);
    expect((await eventTypes(t, s.case_id)).filter((e) => e === 'session.expired')).toHaveLength(1);
  });

  it('refuses a submitted session with 400 invalid_request and changes nothing', async () => {
    const s = await newSession(t, ws, 'address_proof');
    await addProcessedDocument(t, s.case_id, 'utility_bill', { holder_name: 'A B', service_address: 'x', statement_date: '2026-06-01' });
    expect((await answerAndSubmit(t, s, {})).ok).toBe(true);
    const events = await eventTypes(t, s.case_id);
    const error = await dossierError(dossier.sessions.expire(s.session_id));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ status: 400, type: 'validation_error', code: 'invalid_request' });
    expect(error.message).toMatch(/submitted/);
    const session = await t.ctx.db.selectFrom('sessions').select('status').where('session_id', '=', s.session_id).executeTakeFirstOrThrow();
    expect(session.status).toBe('submitted');
    expect(await eventTypes(t, s.case_id)).toEqual(events);
  });

  it('answers 404 for another workspace’s session, the other environment’s, an unknown id and an id that is not a UUID', async () => {
    const s = await newSession(t, ws, 'address_proof');
    const other = await t.workspace();
    const foreign = await dossierError(dossierFor(t, other).sessions.expire(s.session_id));
    expect(foreign).toBeInstanceOf(NotFoundError);
    expect(foreign.code).toBe('not_found');
    const live = await t.createKey(ws.orgId, { environment: 'live' });
    expect((await dossierError(dossierFor(t, live.key).sessions.expire(s.session_id))).status).toBe(404);
    expect((await dossierError(dossier.sessions.expire('7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6'))).status).toBe(404);
    for (const id of ['not-a-uuid', s.case_id, 'x'.repeat(300)]) {
      const res = await expireRaw(id);
      expect(res.statusCode, id).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    }
    const row = await t.ctx.db.selectFrom('sessions').select('status').where('session_id', '=', s.session_id).executeTakeFirstOrThrow();
    expect(row.status).toBe('open');
  });

  it('needs the sessions:write scope', async () => {
    const s = await newSession(t, ws, 'address_proof');
    const reader = await t.createKey(ws.orgId, { scopes: ['cases:read'] });
    const error = await dossierError(dossierFor(t, reader.key).sessions.expire(s.session_id));
    expect(error).toBeInstanceOf(AuthorizationError);
    expect(error).toMatchObject({ status: 403, code: 'forbidden' });
    const writer = await t.createKey(ws.orgId, { scopes: ['sessions:write'] });
    expect((await dossierFor(t, writer.key).sessions.expire(s.session_id)).status).toBe('expired');
  });

  itOnPostgres(backend, 'expires once under concurrent calls: every call answers the session, one set of events', async () => {
    const s = await newSession(t, ws, 'income_verification');
    const results = await Promise.all(Array.from({ length: 8 }, () => dossier.sessions.expire(s.session_id)));
    for (const r of results) expect({ ...r }).toEqual({ ...results[0] });
    const types = await eventTypes(t, s.case_id);
    expect(types.filter((e) => e === 'session.expired')).toHaveLength(1);
    expect(types.filter((e) => e === 'case.completed')).toHaveLength(1);
    expect((await outbox(s.case_id)).map((d) => d.event_type)).toEqual(['v1.session.expired', 'v1.case.completed']);
  });

  // Both take the session's lock and then the case's: racing them must end in one outcome, not a deadlock's 500.
  itOnPostgres(backend, 'an expiry racing the applicant’s submission ends in exactly one of them', async () => {
    for (let i = 0; i < 5; i++) {
      const s = await newSession(t, ws, 'address_proof');
      await addProcessedDocument(t, s.case_id, 'utility_bill', { holder_name: 'A B', service_address: 'x', statement_date: '2026-06-01' });
      const [submitted, expired] = await Promise.all([
        submitIntake(t.ctx, { sessionId: s.session_id, token: s.token, traceId: 'race' }),
        dossier.sessions.expire(s.session_id).then(
          (r) => r.lastResponse.status,
          (e: unknown) => (e instanceof ValidationError ? e.status : Promise.reject(e)),
        ),
      ]);
      const session = await t.ctx.db.selectFrom('sessions').select('status').where('session_id', '=', s.session_id).executeTakeFirstOrThrow();
      if (submitted.ok) {
        expect(expired).toBe(400);
        expect(session.status).toBe('submitted');
      } else {
        expect(expired).toBe(200);
        expect(session.status).toBe('expired');
        expect(submitted.message).toMatch(/expired/);
      }
    }
  });
});
