import type { RequestOptions } from '../http.ts';
import type { Operations, QueryParams, ResponseBody } from '../operations.ts';
import type { PageList } from '../pagination.ts';
import { listPages } from './list.ts';

export type NotificationListParams = QueryParams<'listNotifications'>;
export type NotificationPage = ResponseBody<'listNotifications'>;
export type IntegrationNotification = NotificationPage['notifications'][number];

/** `/api/v1/notifications`: integration notifications (failed deliveries, missing endpoints). */
export class Notifications {
  readonly #ops: Operations;

  constructor(ops: Operations) {
    this.#ops = ops;
  }

  /** GET /api/v1/notifications: newest first, as an async iterable over pages. */
  list(params: NotificationListParams = {}, options?: RequestOptions): PageList<NotificationPage, string, IntegrationNotification> {
    return listPages(this.#ops, 'listNotifications', params, options, (page) => page.notifications);
  }
}
