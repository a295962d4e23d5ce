import type { Db } from '../storage/schema.ts';

/**
 * In-process wake-ups for connector call workers, per database handle. Sent from inside the
 * enqueuing transaction: on the embedded database the claim queues behind that transaction on
 * the single connection; on PostgreSQL a claim that runs before the commit finds nothing and the
 * poll (CONNECTOR_POLL_MS) picks the call up. Correctness never rests on it.
 */
const subscribers = new WeakMap<Db, Set<() => void>>();

export function onConnectorCallsQueued(db: Db, wake: () => void): () => void {
  let set = subscribers.get(db);
  if (!set) subscribers.set(db, (set = new Set()));
  set.add(wake);
  return () => set.delete(wake);
}

export function wakeConnectorWorkers(db: Db): void {
  for (const wake of subscribers.get(db) ?? []) wake();
}
