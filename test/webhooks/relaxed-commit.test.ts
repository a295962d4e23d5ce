import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { openRuntime } from '../../src/runtime.ts';
import { loadConfig } from '../../src/config.ts';
import { createOrg } from '../../src/domain/orgs/orgs.ts';
import { claimDueDeliveriesUnscoped, recordAttemptOutcomesUnscoped } from '../../src/storage/webhooks/deliveries.ts';
import { describeEachBackend, freshDatabase, silentLogger } from '../support/harness.ts';
import { addEndpoint, caseEvent, enqueue } from './fixtures.ts';

/**
 * Claims and plain outcomes are single statements that turn off synchronous_commit for their own
 * implicit transaction only: on a pool of one connection, the next statement there still commits
 * normally, and the lease guard still decides what is recorded.
 */
describeEachBackend('relaxed commits of the delivery engine', (backend) => {
  it('are one statement each, and leave the connection as they found it', async () => {
    const fresh = await freshDatabase(backend);
    const target = fresh.target.kind === 'postgres' ? { ...fresh.target, poolSize: 1 } : fresh.target;
    const config = loadConfig({ DOSSIER_ALLOW_PRIVATE_NETWORK: 'true', DOSSIER_SECRET: 'a-deployment-secret-of-enough-length-0123' });
    const runtime = await openRuntime(config, { logger: silentLogger, target });
    const { ctx } = runtime;
    const setting = async () => (await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(ctx.db)).rows[0]!.synchronous_commit;
    try {
      const org = await createOrg(ctx, { name: 'relaxed' });
      await addEndpoint(ctx, org.org_id, 'http://127.0.0.1:9/hooks');
      const [id] = await enqueue(ctx, caseEvent(org.org_id, 'case_relaxed'));
      const before = await setting();

      const now = new Date();
      const statements = runtime.database.poolStats().statements;
      const claimed = await claimDueDeliveriesUnscoped(ctx.db, { workerId: 'w1', now, leaseUntil: new Date(now.getTime() + 60_000), limit: 10, perEndpointLimit: 8, inFlight: new Map() });
      expect(claimed.map((d) => d.delivery_id)).toEqual([id]);
      expect(await setting()).toBe(before);

      const record = {
        delivery_id: id!, attempt_number: 1, attempted_at: now, status_code: 200, duration_ms: 3, error: null, response_excerpt: 'ok',
        status: 'delivered' as const, attempt_count: 1, next_attempt_at: null,
      };
      // Another worker's outcome is refused by the lease guard; the owner's is recorded.
      expect(await recordAttemptOutcomesUnscoped(ctx.db, 'w2', [record], now, { relaxed: true })).toEqual([]);
      expect(await recordAttemptOutcomesUnscoped(ctx.db, 'w1', [record], now, { relaxed: true })).toEqual([id]);
      expect(runtime.database.poolStats().statements - statements).toBe(4); // the claim, the show, the two outcome batches: no BEGIN, SET or COMMIT
      expect(await setting()).toBe(before);
      const row = await ctx.db.selectFrom('webhook_deliveries').select(['status', 'locked_by']).where('delivery_id', '=', id!).executeTakeFirstOrThrow();
      expect(row).toEqual({ status: 'delivered', locked_by: null });
      expect(await ctx.db.selectFrom('webhook_delivery_attempts').select('attempt_number').where('delivery_id', '=', id!).execute()).toEqual([{ attempt_number: 1 }]);
    } finally {
      await runtime.close();
      await fresh.dispose();
    }
  });
});
