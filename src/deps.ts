import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Clock } from './ports/clock.ts';
import type { Ids } from './ports/ids.ts';
import type { Db } from './storage/schema.ts';

/** What every domain function may use. Passed in, never imported as a singleton. */
export interface Deps {
  db: Db;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  config: Config;
}
