import type { Migration } from './index.ts';
import { addCaseRevisionTriggers } from './0015_case_records.ts';

/** Action states are part of the case record (`workspace.actions`): their calls move the case revision too. */
export const connectorCallRevisions: Migration = {
  id: '0019_connector_call_revisions',
  async up(trx) {
    await addCaseRevisionTriggers(trx, 'connector_calls');
  },
};
