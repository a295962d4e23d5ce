/** What a same-process worker can be woken for. */
export type WakeTopic = 'webhook-deliveries' | 'connector-calls';

/**
 * In-process wake-ups: an enqueue tells the workers of this process that work is waiting, so
 * they claim now instead of at their next poll. Correctness never rests on it: the poll (and,
 * for webhook deliveries on PostgreSQL, NOTIFY) finds everything a lost wake-up leaves.
 *
 * Sent from inside the enqueuing transaction. On the embedded database that cannot be seen early:
 * everything runs over one connection, so the worker's claim queues behind the transaction and
 * runs after its commit. On PostgreSQL a claim that runs before the commit finds nothing and the
 * poll picks the work up; for deliveries, the NOTIFY sent at commit wakes every process.
 */
export interface WakeUps {
  /** Calls `wake` at each `notify` of `topic` until the returned function is called. */
  subscribe(topic: WakeTopic, wake: () => void): () => void;
  notify(topic: WakeTopic): void;
}

/** One per app context: two contexts in one process (tests) never wake each other's workers. */
export function inProcessWakeUps(): WakeUps {
  const subscribers = new Map<WakeTopic, Set<() => void>>();
  return {
    subscribe(topic, wake) {
      let set = subscribers.get(topic);
      if (!set) subscribers.set(topic, (set = new Set()));
      set.add(wake);
      return () => set.delete(wake);
    },
    notify(topic) {
      for (const wake of subscribers.get(topic) ?? []) wake();
    },
  };
}
