import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import type { ApiKeysTable, FoundationTables, OrgsTable } from './tables/foundation.ts';
import type { CaseTables } from './tables/cases.ts';
import type { WebhookTables } from './tables/webhooks.ts';
import type { OperatorTables } from './tables/operators.ts';
import type { ConnectorTables } from './tables/connectors.ts';
import type { ConsoleTables } from './tables/console.ts';

export type { BillingStatus } from './tables/foundation.ts';
export type { Timestamp, Json } from './tables/types.ts';

/** Every table, by capability; each capability's file declares its own. */
export interface Database extends FoundationTables, CaseTables, WebhookTables, OperatorTables, ConnectorTables, ConsoleTables {}

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
/** Either the pool or an open transaction: storage functions run inside whichever unit of work they are given. */
export type Executor = Db | Tx;

export type OrgRow = Selectable<OrgsTable>;
export type NewOrgRow = Insertable<OrgsTable>;
export type OrgUpdate = Updateable<OrgsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKeyRow = Insertable<ApiKeysTable>;
