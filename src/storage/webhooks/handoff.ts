import type { Executor } from '../schema.ts';
import type { HandoffState } from '../tables/cases.ts';
import type { Tenant } from '../../ports/tenant.ts';

export interface CaseRef extends Tenant {
  caseId: string;
}

/**
 * Moves a case's handoff_state (contract §8: dispatching, delivered, dispatch_failed,
 * acknowledged), only from the states listed in `from`: an acknowledged handoff never goes back.
 * Returns whether the case moved.
 */
export async function moveHandoff(
  db: Executor,
  ref: CaseRef,
  change: { to: HandoffState; from: readonly (HandoffState | null)[]; deliveryId?: string; now: Date; touch?: boolean },
): Promise<boolean> {
  const fromStates = change.from.filter((s): s is HandoffState => s !== null);
  const result = await db
    .updateTable('cases')
    .set({
      handoff_state: change.to,
      ...(change.deliveryId !== undefined ? { handoff_delivery_id: change.deliveryId } : {}),
      ...(change.to === 'acknowledged' ? { handoff_acknowledged_at: change.now } : {}),
      ...(change.touch === false ? {} : { updated_at: change.now }),
    })
    .where('case_id', '=', ref.caseId)
    .where('org_id', '=', ref.orgId)
    .where('environment', '=', ref.environment)
    .where((eb) => {
      const allowed = fromStates.length > 0 ? [eb('handoff_state', 'in', fromStates)] : [];
      if (change.from.includes(null)) allowed.push(eb('handoff_state', 'is', null));
      return eb.or(allowed);
    })
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
