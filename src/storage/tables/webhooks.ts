import type { Environment } from '../../config.ts';
import type { Generated } from 'kysely';
import type { Json, Timestamp } from './types.ts';

/** `url`: the worker POSTs to it. `listener`: `dossier listen` receives its deliveries over a stream. */
export type EndpointKind = 'url' | 'listener';

export type DeliveryStatus = 'pending' | 'retry_scheduled' | 'delivered' | 'failed';

export interface WebhookEndpointsTable {
  endpoint_id: string;
  org_id: string;
  environment: Environment;
  url: string;
  /** Catalog names (`v1.case.completed`) or the single entry `*`. */
  event_types: string[];
  enabled: boolean;
  /** The signing secret sealed under the deployment secret (secret-box purpose `webhook-secret`). */
  secret_box: string;
  /** The secret before the last rotation: deliveries are signed with both until it expires. */
  previous_secret_box: string | null;
  previous_secret_expires_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  disabled_at: Timestamp | null;
  kind: Generated<EndpointKind>;
  /** A listener's name (`cli` by default); null for a URL endpoint. */
  listener_name: string | null;
  /** While in the future, a `dossier listen` stream is open and takes this listener's deliveries. */
  listener_connected_until: Timestamp | null;
}

export interface WebhookDeliveriesTable {
  delivery_id: string;
  org_id: string;
  environment: Environment;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  case_id: string | null;
  /** The exact request body, fixed at enqueue: text, not jsonb, so every attempt sends the same bytes. */
  payload: string;
  status: DeliveryStatus;
  /** Attempts in the current budget (a manual retry starts a new budget). */
  attempt_count: number;
  /** Attempts ever recorded: numbers the attempt rows. */
  total_attempts: number;
  next_attempt_at: Timestamp | null;
  /** The worker holding the lease, and when the lease ends (then any worker may take the delivery again). */
  locked_by: string | null;
  locked_until: Timestamp | null;
  last_attempt_at: Timestamp | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: Timestamp | null;
  failed_at: Timestamp | null;
  acknowledged_at: Timestamp | null;
  acknowledgement_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookDeliveryAttemptsTable {
  delivery_id: string;
  attempt_number: number;
  org_id: string;
  environment: Environment;
  attempted_at: Timestamp;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  /** The first 4 KiB of the receiver's answer. */
  response_excerpt: string | null;
}

export type NotificationKind = 'webhook_delivery_failed' | 'webhook_no_endpoint';

/** Integration notifications: what a developer of the workspace should look at. */
export interface IntegrationNotificationsTable {
  notification_id: string;
  org_id: string;
  environment: Environment;
  kind: NotificationKind;
  message: string;
  data: Json<Record<string, unknown>>;
  created_at: Timestamp;
  /** When a developer marked it read in the dashboard. */
  read_at: Timestamp | null;
}

export interface WebhookTables {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
  integration_notifications: IntegrationNotificationsTable;
}
