/**
 * What follows one attempt of leased work with a bounded budget (webhook deliveries, spec §3.2;
 * connector calls, issue 14): success ends it; a failure with budget left is retried after the
 * delay for its position (the first failure waits `retryDelaysSeconds[0]`, …); the failure after
 * the last delay ends it as `failed`. So a budget is one attempt more than there are delays.
 */
export interface AttemptDecision<Succeeded extends string> {
  status: Succeeded | 'retry_scheduled' | 'failed';
  /** Attempts made in the current budget, this one included. */
  attemptCount: number;
  nextAttemptAt: Date | null;
}

export function decideAfterAttempt<Succeeded extends string>(input: {
  attemptCountBefore: number;
  succeeded: boolean;
  /** The status a success records: `delivered` for a delivery, `succeeded` for a call. */
  succeededAs: Succeeded;
  now: Date;
  retryDelaysSeconds: readonly number[];
}): AttemptDecision<Succeeded> {
  const attemptCount = input.attemptCountBefore + 1;
  if (input.succeeded) return { status: input.succeededAs, attemptCount, nextAttemptAt: null };
  const delaySeconds = input.retryDelaysSeconds[attemptCount - 1];
  if (delaySeconds === undefined) return { status: 'failed', attemptCount, nextAttemptAt: null };
  return { status: 'retry_scheduled', attemptCount, nextAttemptAt: new Date(input.now.getTime() + delaySeconds * 1000) };
}

/** The attempts in one budget. */
export function maxAttempts(retryDelaysSeconds: readonly number[]): number {
  return retryDelaysSeconds.length + 1;
}
