/** A wake-up that is not lost when it comes before anyone waits: `set` latches until the next `wait`. */
export class Latch {
  #set = false;
  #release: (() => void) | undefined;

  set(): void {
    this.#set = true;
    this.#release?.();
  }

  /** Resolves at the next `set` (at once if one is pending) or after `ms`. */
  async wait(ms: number): Promise<void> {
    if (!this.#set && ms > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        const self = this;
        function done() {
          clearTimeout(timer);
          self.#release = undefined;
          resolve();
        }
        this.#release = done;
      });
    }
    this.#set = false;
  }
}
