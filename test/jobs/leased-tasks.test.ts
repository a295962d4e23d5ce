import { expect, it } from 'vitest';
import pino from 'pino';
import type { AppContext } from '../../src/domain/deps.ts';
import { BatchLeasedTask, LEASE_MARGIN_MS, type LeasedKind, type LeaseRequest } from '../../src/jobs/leased-tasks.ts';
import { ManualClock } from '../../src/ports/clock.ts';
import { inProcessWakeUps } from '../../src/ports/wake.ts';

/**
 * The leased pipeline's own rules, on an in-memory kind (the storage claims are tested with each
 * kind against PGlite and PostgreSQL): the lease it asks for, the wake topic, the hand-back when
 * stopped after a claim, and a run that throws leaving its item unrecorded for the lease to expire.
 */
function memoryContext(): AppContext {
  return { clock: new ManualClock('2026-06-15T12:00:00.000Z'), wake: inProcessWakeUps(), logger: pino({ level: 'silent' }) } as unknown as AppContext;
}

function memoryKind(items: string[], hooks: { run?: (item: string) => Promise<string> } = {}) {
  const leases: LeaseRequest[] = [];
  const recorded: [string, string, string][] = [];
  const released: string[] = [];
  const kind: LeasedKind<string, string> = {
    runMs: () => 10_000,
    async claim(_ctx, lease) {
      leases.push(lease);
      return items.splice(0, lease.limit);
    },
    async release(_ctx, _workerId, taken) {
      released.push(...taken);
    },
    run: (_ctx, item) => (hooks.run ? hooks.run(item) : Promise.resolve(`ran ${item}`)),
    async record(_ctx, workerId, item, outcome) {
      recorded.push([workerId, item, outcome]);
    },
    describe: (item) => ({ item }),
  };
  return { kind, leases, recorded, released };
}

it('claims under a lease of the run time plus the margin and records each outcome as the lease holder', async () => {
  const ctx = memoryContext();
  const { kind, leases, recorded } = memoryKind(['a', 'b', 'c']);
  const task = new BatchLeasedTask(kind, { name: 'memory', pollMs: 50, batch: 2, concurrent: true, workerId: 'w-1' });
  expect(await task.run(ctx)).toBe(2);
  expect(leases[0]).toEqual({ workerId: 'w-1', now: ctx.clock.now(), leaseUntil: new Date(ctx.clock.now().getTime() + 10_000 + LEASE_MARGIN_MS), limit: 2 });
  expect(await task.run(ctx)).toBe(1);
  expect(recorded).toEqual([['w-1', 'a', 'ran a'], ['w-1', 'b', 'ran b'], ['w-1', 'c', 'ran c']]);
  await task.stop();
});

it('an idle task with a wake topic waits for a notify, not for its poll', async () => {
  const ctx = memoryContext();
  const items: string[] = [];
  const { kind, recorded } = memoryKind(items);
  const task = new BatchLeasedTask(kind, { name: 'memory', pollMs: 60_000, wakeOn: 'connector-calls', batch: 8, concurrent: true });
  const idle = task.run(ctx);
  await new Promise((resolve) => setTimeout(resolve, 20));
  items.push('late');
  // Another context's wake-ups reach only its own workers.
  memoryContext().wake.notify('connector-calls');
  ctx.wake.notify('connector-calls');
  expect(await idle).toBe(1);
  expect(recorded.map(([, item]) => item)).toEqual(['late']);
  await task.stop();
});

it('a run that throws is logged and left unrecorded, so its lease runs out and it is tried again', async () => {
  const ctx = memoryContext();
  const { kind, recorded } = memoryKind(['bad', 'good'], { run: async (item) => (item === 'bad' ? Promise.reject(new Error('broken')) : `ran ${item}`) });
  const task = new BatchLeasedTask(kind, { name: 'memory', pollMs: 50, batch: 8, concurrent: false });
  expect(await task.run(ctx)).toBe(2);
  expect(recorded.map(([, item]) => item)).toEqual(['good']);
  await task.stop();
});

it('stop lets the batch in hand be recorded, and a claim that lands after stop is handed back unrun', async () => {
  const ctx = memoryContext();
  let finish!: () => void;
  const gate = new Promise<void>((resolve) => (finish = resolve));
  let started = false;
  const { kind, recorded, released } = memoryKind(['slow', 'next'], {
    run: async (item) => {
      started = true;
      await gate;
      return `ran ${item}`;
    },
  });
  const task = new BatchLeasedTask(kind, { name: 'memory', pollMs: 50, batch: 1, concurrent: true });
  const first = task.run(ctx);
  while (!started) await new Promise((resolve) => setTimeout(resolve, 1));
  const stopped = task.stop();
  finish();
  await Promise.all([first, stopped]);
  expect(recorded.map(([, item]) => item)).toEqual(['slow']);
  // A run already past its stop check when stop is called: its claim goes straight back, unrun.
  const late = new BatchLeasedTask(kind, { name: 'memory', pollMs: 50, batch: 1, concurrent: true });
  const claimAfterStop = late.run(ctx);
  await late.stop();
  expect(await claimAfterStop).toBe(0);
  expect(released).toEqual(['next']);
  expect(recorded.map(([, item]) => item)).toEqual(['slow']);
});
