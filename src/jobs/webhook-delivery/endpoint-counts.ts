/**
 * Deliveries in hand (sending, or leased and waiting for a slot) per endpoint, so one slow or
 * dead endpoint can hold at most `limit` of a worker's slots. The claim reads `counts` to skip
 * endpoints at their limit; `capped` remembers which were at it after the last claim, since a
 * slot of theirs freeing may uncover due work the claim skipped.
 */
export class EndpointCounts {
  readonly limit: number;
  readonly counts = new Map<string, number>();
  #capped = new Set<string>();

  constructor(limit: number) {
    this.limit = limit;
  }

  take(endpointId: string): void {
    this.counts.set(endpointId, (this.counts.get(endpointId) ?? 0) + 1);
  }

  give(endpointId: string): void {
    const n = (this.counts.get(endpointId) ?? 1) - 1;
    if (n > 0) this.counts.set(endpointId, n);
    else this.counts.delete(endpointId);
  }

  /** Notes which endpoints are at their limit now (call after a claim). */
  noteCapped(): void {
    this.#capped = new Set([...this.counts].filter(([, n]) => n >= this.limit).map(([id]) => id));
  }

  wasCapped(endpointId: string): boolean {
    return this.#capped.has(endpointId);
  }
}
