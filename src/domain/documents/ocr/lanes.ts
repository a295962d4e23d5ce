/**
 * A fixed number of lanes that jobs run in, first come first served: a job asks for one lane or
 * several at once and runs when that many are free. The OCR engine gives each lane its own
 * Tesseract workers (a worker runs one job at a time and keeps settings between them), so two
 * jobs never share a worker, and a page read in parts takes every lane.
 */
export interface Lanes {
  readonly size: number;
  /** Runs `job` holding `count` lanes (their numbers, 0-based), once they are free. */
  run<T>(count: number, job: (lanes: readonly number[]) => Promise<T>): Promise<T>;
  /** Resolves when no job is running or waiting. */
  idle(): Promise<void>;
}

export function createLanes(size: number): Lanes {
  const free = Array.from({ length: size }, (_, lane) => lane);
  const waiting: Array<{ count: number; grant: (lanes: number[]) => void }> = [];
  let running = 0;
  let whenIdle: Array<() => void> = [];

  const grantWaiting = () => {
    // In order: a job waiting for two lanes is not overtaken by later jobs wanting one, or it
    // could wait for ever.
    while (waiting.length > 0 && waiting[0]!.count <= free.length) {
      const next = waiting.shift()!;
      next.grant(free.splice(0, next.count));
    }
    if (running === 0 && waiting.length === 0) {
      for (const resolve of whenIdle) resolve();
      whenIdle = [];
    }
  };

  return {
    size,
    async run(count, job) {
      if (!Number.isInteger(count) || count < 1 || count > size) throw new RangeError(`a job takes 1 to ${size} lanes, not ${count}`);
      running++;
      const lanes = await new Promise<number[]>((grant) => {
        waiting.push({ count, grant });
        grantWaiting();
      });
      try {
        return await job(lanes);
      } finally {
        free.push(...lanes);
        free.sort((a, b) => a - b);
        running--;
        grantWaiting();
      }
    },
    idle() {
      if (running === 0 && waiting.length === 0) return Promise.resolve();
      return new Promise((resolve) => whenIdle.push(resolve));
    },
  };
}

/**
 * Calls `job` for every item, at most `atOnce` at a time, and resolves when all are done. Items
 * are started in order; after a failure none is started, and the first failure rejects once the
 * jobs already started have ended.
 */
export async function eachAtOnce<T>(items: readonly T[], atOnce: number, job: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        await job(items[index]!, index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.max(1, Math.min(atOnce, items.length)) }, worker));
  const failure = settled.find((s) => s.status === 'rejected');
  if (failure) throw failure.reason;
}
