/** Contract §8 catalog: webhook event names carry the `v1.` prefix (spec §9.3). */
export const WEBHOOK_EVENT_TYPES = [
  'v1.webhook.test',
  'v1.intake.submitted',
  'v1.case.needs_input',
  'v1.case.ready_for_review',
  'v1.case.completed',
  'v1.session.expired',
  'v1.webhook.delivery_failed',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** What an endpoint can subscribe to: everything but the test event, which only the test operation sends. */
export const SUBSCRIBABLE_EVENT_TYPES = WEBHOOK_EVENT_TYPES.filter((t) => t !== 'v1.webhook.test');

export const CASE_COMPLETED = 'v1.case.completed';
export const DELIVERY_FAILED = 'v1.webhook.delivery_failed';
export const WEBHOOK_TEST = 'v1.webhook.test';

export function semanticEventType(eventType: string): string {
  return eventType.startsWith('v1.') ? eventType.slice(3) : eventType;
}

/**
 * Normalises a subscription list: `*` alone, or distinct catalog names. Accepts the semantic
 * names too (`case.completed`), since people will type them.
 */
export function parseSubscription(events: readonly string[]): { ok: true; eventTypes: string[] } | { ok: false; message: string } {
  const names = [...new Set(events.map((e) => e.trim()).filter(Boolean))];
  if (names.length === 0) return { ok: false, message: "subscribe to at least one event type, or '*'" };
  if (names.includes('*')) return names.length === 1 ? { ok: true, eventTypes: ['*'] } : { ok: false, message: "'*' cannot be combined with named events" };
  const eventTypes: string[] = [];
  for (const name of names) {
    const full = name.startsWith('v1.') ? name : `v1.${name}`;
    if (!(SUBSCRIBABLE_EVENT_TYPES as readonly string[]).includes(full)) {
      return { ok: false, message: `unknown event type "${name}"; known: ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}` };
    }
    eventTypes.push(full);
  }
  return { ok: true, eventTypes };
}
