/**
 * What a claim is offered when claims may overlap (issue 29): a claim's rows are not counted in
 * hand until it returns, so whatever a running claim was offered counts as taken meanwhile. Each
 * claim is offered half (rounded up) of what is free, of the room in hand and of every endpoint's
 * slots, so the next claim, started while it runs, still finds something: ⌈f/2⌉, then
 * ⌈(f − ⌈f/2⌉)/2⌉ ≤ f − ⌈f/2⌉, and so on. However many overlap and in whatever order they
 * return, the offers of the running claims plus what is in hand never exceed an endpoint's limit.
 */
export interface ClaimOffer {
  /** Rows in all. */
  limit: number;
  /** Rows of an endpoint not in `caps`. */
  defaultCap: number;
  caps: ReadonlyMap<string, number>;
}

export interface OfferInput {
  /** Room in hand left for all claims, running ones' offers already taken off. */
  room: number;
  perEndpointLimit: number;
  /** Per endpoint, deliveries in hand (sending, or leased and waiting for a slot). */
  inHand: ReadonlyMap<string, number>;
  /** The offers of the claims still running. */
  running: readonly ClaimOffer[];
  /** Claims may overlap: offer half. Otherwise (one claim at a time) all that is free. */
  shared: boolean;
  /** A claim is never offered fewer rows in all than this (or than the room): its cost is mostly its round trip. */
  minimum: number;
}

export function nextClaimOffer(input: OfferInput): ClaimOffer {
  const share = (free: number) => (input.shared ? Math.ceil(free / 2) : free);
  const offeredTo = (endpointId: string | undefined) =>
    input.running.reduce((n, o) => n + (endpointId === undefined ? o.defaultCap : (o.caps.get(endpointId) ?? o.defaultCap)), 0);
  const limit = input.perEndpointLimit;
  const defaultCap = share(Math.max(0, limit - offeredTo(undefined)));
  const named = new Set([...input.inHand.keys(), ...input.running.flatMap((o) => [...o.caps.keys()])]);
  const caps = new Map<string, number>();
  for (const endpointId of named) caps.set(endpointId, share(Math.max(0, limit - (input.inHand.get(endpointId) ?? 0) - offeredTo(endpointId))));
  return { limit: Math.max(Math.min(input.room, input.minimum), share(input.room)), defaultCap, caps };
}

/** The offer in the claim statement's terms: a limit for every endpoint, less what is not free of the named ones. */
export function claimCapsOf(offer: ClaimOffer): { perEndpointLimit: number; inFlight: Map<string, number> } {
  return { perEndpointLimit: offer.defaultCap, inFlight: new Map([...offer.caps].map(([id, cap]) => [id, offer.defaultCap - cap])) };
}
