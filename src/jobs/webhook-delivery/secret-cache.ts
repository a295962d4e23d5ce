import type { AppContext } from '../../app-context.ts';
import { signingSecretsOf } from '../../domain/webhooks/endpoints.ts';
import type { ClaimedDelivery } from '../../storage/webhooks/deliveries.ts';

/** Bounded cache of opened signing secrets: opening (AES-GCM) per attempt is cheap but not free. */
const SECRET_CACHE_SIZE = 1_000;

/**
 * The secrets an attempt is signed with (the current one, and the previous one during the 24 h
 * after a rotation), opened once per sealed pair rather than once per attempt. Keyed by the
 * sealed values, so a rotation is a new key and needs no invalidation.
 */
export class SigningSecretCache {
  readonly #secrets = new Map<string, string[]>();

  get(ctx: Pick<AppContext, 'secret'>, delivery: ClaimedDelivery, now: Date): string[] {
    const previousLive = delivery.previous_secret_expires_at !== null && delivery.previous_secret_expires_at > now;
    const key = `${delivery.secret_box}|${previousLive ? delivery.previous_secret_box : ''}`;
    let secrets = this.#secrets.get(key);
    if (!secrets) {
      secrets = signingSecretsOf(ctx.secret, delivery, now);
      if (this.#secrets.size >= SECRET_CACHE_SIZE) this.#secrets.clear();
      this.#secrets.set(key, secrets);
    }
    return secrets;
  }
}
