import type { RequestOptions } from '../http.ts';
import type { Operations, QueryParams, RequestBody, ResponseBody } from '../operations.ts';
import type { PageList } from '../pagination.ts';
import { listPages } from './list.ts';
import type { WithResponse } from '../response.ts';

export type WebhookTestParams = RequestBody<'sendTestWebhook'>;
export type WebhookTestResult = ResponseBody<'sendTestWebhook'>;
export type WebhookDeliveryListParams = QueryParams<'listWebhookDeliveries'>;
export type WebhookDeliveryPage = ResponseBody<'listWebhookDeliveries'>;
export type WebhookDeliverySummary = WebhookDeliveryPage['deliveries'][number];
export type WebhookDelivery = ResponseBody<'getWebhookDelivery'>;
export type WebhookAcknowledgementParams = RequestBody<'acknowledgeWebhookDelivery'>;
export type WebhookAcknowledgement = ResponseBody<'acknowledgeWebhookDelivery'>;

/** `/api/v1/webhooks/deliveries`: the delivery log, manual retries and handoff acknowledgements. */
export class WebhookDeliveries {
  readonly #ops: Operations;

  constructor(ops: Operations) {
    this.#ops = ops;
  }

  /** GET /api/v1/webhooks/deliveries: newest first, as an async iterable over pages. */
  list(params: WebhookDeliveryListParams = {}, options?: RequestOptions): PageList<WebhookDeliveryPage, string, WebhookDeliverySummary> {
    return listPages(this.#ops, 'listWebhookDeliveries', params, options, (page) => page.deliveries);
  }

  /** GET /api/v1/webhooks/deliveries/{delivery_id}: one delivery with its attempts and envelope. */
  retrieve(deliveryId: string, options?: RequestOptions): Promise<WithResponse<WebhookDelivery>> {
    return this.#ops.call('getWebhookDelivery', { path: { delivery_id: deliveryId }, ...(options ? { options } : {}) });
  }

  /** POST /api/v1/webhooks/deliveries/{delivery_id}/retry: sends a failed delivery again. */
  retry(deliveryId: string, options?: RequestOptions): Promise<WithResponse<WebhookDelivery>> {
    return this.#ops.call('retryWebhookDelivery', { path: { delivery_id: deliveryId }, ...(options ? { options } : {}) });
  }

  /**
   * POST /api/v1/webhooks/deliveries/{delivery_id}/ack: records that your system received the
   * decision-ready handoff. Give `acknowledgement_id` (your own id for the receipt) to make a
   * repeat replay the first answer.
   */
  ack(deliveryId: string, body: WebhookAcknowledgementParams = {}, options?: RequestOptions): Promise<WithResponse<WebhookAcknowledgement>> {
    return this.#ops.call('acknowledgeWebhookDelivery', { path: { delivery_id: deliveryId }, body, ...(options ? { options } : {}) });
  }
}

/** `/api/v1/webhooks`. */
export class Webhooks {
  readonly #ops: Operations;
  readonly deliveries: WebhookDeliveries;

  constructor(ops: Operations) {
    this.#ops = ops;
    this.deliveries = new WebhookDeliveries(ops);
  }

  /** POST /api/v1/webhooks/test: sends one signed `v1.webhook.test` delivery to `endpoint_url` now. */
  test(body: WebhookTestParams, options?: RequestOptions): Promise<WithResponse<WebhookTestResult>> {
    return this.#ops.call('sendTestWebhook', { body, ...(options ? { options } : {}) });
  }
}
