import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IllegalTransitionError, RUNTIME_STATUSES, TRANSITIONS, canTransition } from '../../src/domain/cases/state-machine.ts';
import { lockCaseRow, transitionCase } from '../../src/domain/cases/case-writer.ts';
import type { RuntimeStatus } from '../../src/domain/cases/case-state.ts';
import { inTransaction } from '../../src/storage/unit-of-work.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { withExampleCaseTypes } from '../support/fixtures.ts';
import { newSession } from './engine-fixtures.ts';

const ALLOWED: [RuntimeStatus, RuntimeStatus][] = [
  ['intake_in_progress', 'processing'],
  ['intake_in_progress', 'gate_ready'],
  ['intake_in_progress', 'complete'],
  ['processing', 'intake_in_progress'],
  ['processing', 'gate_ready'],
  ['processing', 'complete'],
  ['gate_ready', 'gate_evaluating'],
  ['gate_evaluating', 'intake_in_progress'],
  ['gate_evaluating', 'ready_for_review'],
  ['gate_evaluating', 'complete'],
  ['ready_for_review', 'complete'],
];

const pairs = RUNTIME_STATUSES.flatMap((from) => RUNTIME_STATUSES.map((to) => [from, to] as [RuntimeStatus, RuntimeStatus]));

describe('transition table', () => {
  it('is exactly the documented set', () => {
    const table = RUNTIME_STATUSES.flatMap((from) => (TRANSITIONS[from] as readonly RuntimeStatus[]).map((to) => `${from}→${to}`)).sort();
    expect(table).toEqual(ALLOWED.map(([a, b]) => `${a}→${b}`).sort());
    expect(RUNTIME_STATUSES.sort()).toEqual(['complete', 'gate_evaluating', 'gate_ready', 'intake_in_progress', 'processing', 'ready_for_review']);
  });
});

describeEachBackend('transitions in storage', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let caseId: string;
  beforeAll(async () => {
    t = await createTestApp(backend);
    ws = await t.workspace();
    await withExampleCaseTypes(t, ws.orgId);
    caseId = (await newSession(t, ws, 'income_verification')).case_id;
  });
  afterAll(() => t.close());

  const cause = { traceId: 'test', idempotencyKey: null };

  it.each(pairs)('%s → %s is %s', async (from, to) => {
    await t.ctx.db.updateTable('cases').set({ runtime_status: from }).where('case_id', '=', caseId).execute();
    const attempt = inTransaction(t.ctx.db, async (tx) => {
      const row = (await lockCaseRow(tx, { tenant: { orgId: ws.orgId, environment: 'test' }, caseId }))!;
      return transitionCase(tx, t.ctx, { row, to, cause });
    });
    const stored = async () => (await t.ctx.db.selectFrom('cases').select('runtime_status').where('case_id', '=', caseId).executeTakeFirstOrThrow()).runtime_status;
    if (canTransition(from, to)) {
      expect((await attempt).runtime_status).toBe(to);
      expect(await stored()).toBe(to);
      const last = await t.ctx.db.selectFrom('case_events').selectAll().where('case_id', '=', caseId).orderBy('cursor', 'desc').limit(1).executeTakeFirstOrThrow();
      expect(last).toMatchObject({ event_type: 'case.status_changed', data: { from, to } });
    } else {
      await expect(attempt).rejects.toBeInstanceOf(IllegalTransitionError);
      expect(await stored()).toBe(from);
    }
  });
});
