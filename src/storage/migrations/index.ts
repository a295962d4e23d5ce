import type { Tx } from '../schema.ts';
import { foundation } from './0001_foundation.ts';
import { cases } from './0002_cases.ts';

/** A forward-only schema step. Applied once, in order, inside one transaction. */
export interface Migration {
  /** Sorts in application order; never renamed once released. */
  id: string;
  up(trx: Tx): Promise<void>;
}

export const MIGRATIONS: readonly Migration[] = [foundation, cases];
