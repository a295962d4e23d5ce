import type { AppContext } from '../../domain/deps.ts';
import { signingSecretsOf } from '../../domain/webhooks/endpoints.ts';
import { signingKeysOf, type SigningKeys } from '../../domain/webhooks/signature.ts';
import type { ClaimedDelivery } from '../../storage/webhooks/deliveries.ts';

/** Bounded cache of opened signing secrets: opening (AES-GCM) and making HMAC keys per attempt is cheap but not free. */
const SECRET_CACHE_SIZE = 1_000;

/**
 * The keys an attempt is signed with (the current secret's, and the previous one's during the
 * 24 h after a rotation), opened once per endpoint and sealed pair rather than once per attempt.
 * Keyed by the endpoint and the sealed values, so a rotation is a new key and needs no
 * invalidation, and a box copied to another endpoint's row is opened (and refused, its associated
 * data being the endpoint id) rather than served from the cache.
 */
export class SigningSecretCache {
  readonly #secrets = new Map<string, SigningKeys[]>();

  get(ctx: Pick<AppContext, 'secret'>, delivery: ClaimedDelivery, now: Date): SigningKeys[] {
    const previousLive = delivery.previous_secret_expires_at !== null && delivery.previous_secret_expires_at > now;
    const key = `${delivery.endpoint_id}|${delivery.secret_box}|${previousLive ? delivery.previous_secret_box : ''}`;
    let secrets = this.#secrets.get(key);
    if (!secrets) {
      secrets = signingSecretsOf(ctx.secret, delivery, now).map(signingKeysOf);
      if (this.#secrets.size >= SECRET_CACHE_SIZE) this.#secrets.clear();
      this.#secrets.set(key, secrets);
    }
    return secrets;
  }
}
