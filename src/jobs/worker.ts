import type { AppContext } from '../domain/deps.ts';

/** One kind of background work. `run` does a bounded batch and says how many items it handled. */
export interface JobTask {
  name: string;
  /** How long to sleep when a batch found nothing: the safety-net poll behind wake-ups. */
  idleMs: number;
  run(ctx: AppContext): Promise<number>;
  /** Lets work the task started in the background (sends in flight) finish; called by Worker.stop. */
  stop?(): Promise<void>;
}

/**
 * Runs each task in its own loop so a slow task never holds up another. A loop that found work
 * goes again at once; an idle loop sleeps `idleMs` unless `wake` is called (after a commit that
 * created work). Errors are logged and retried after the idle delay: the worker never dies of one
 * bad batch. `stop` lets every batch in progress finish.
 */
export class Worker {
  readonly #ctx: AppContext;
  readonly #tasks: readonly JobTask[];
  readonly #wakers = new Map<string, () => void>();
  #loops: Promise<void>[] = [];
  #stopping = false;

  constructor(ctx: AppContext, tasks: readonly JobTask[]) {
    this.#ctx = ctx;
    this.#tasks = tasks;
  }

  get taskNames(): string[] {
    return this.#tasks.map((t) => t.name);
  }

  start(): void {
    if (this.#loops.length > 0) return;
    this.#stopping = false;
    this.#loops = this.#tasks.map((task) => this.#loop(task));
  }

  /** Ends the idle wait of one task, or of all. */
  wake(taskName?: string): void {
    for (const [name, wake] of this.#wakers) if (!taskName || name === taskName) wake();
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    this.wake();
    await Promise.all([...this.#loops, ...this.#tasks.map((t) => t.stop?.())]);
    this.#loops = [];
  }

  async #loop(task: JobTask): Promise<void> {
    const log = this.#ctx.logger.child({ task: task.name });
    while (!this.#stopping) {
      let handled = 0;
      try {
        handled = await task.run(this.#ctx);
      } catch (err) {
        log.error({ err }, 'job batch failed');
      }
      if (handled > 0 || this.#stopping) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, task.idleMs);
        const wakers = this.#wakers;
        function done() {
          clearTimeout(timer);
          wakers.delete(task.name);
          resolve();
        }
        wakers.set(task.name, done);
      });
    }
  }
}
