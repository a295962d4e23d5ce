import type { Deps } from '../deps.ts';
import { insertConnectorCall } from '../../storage/connector-calls.ts';
import type { ActionNode, ActionTrigger } from '../case-types/definition.ts';
import type { ActionEnqueuer } from '../../ports/enqueuers.ts';
import { pinnedDefinition } from '../cases/load-case.ts';

/** Which action triggers a case event fires. */
export function triggersOf(eventType: string, data: Record<string, unknown>): ActionTrigger[] {
  if (eventType === 'intake.submitted') return ['on_submit'];
  if (eventType !== 'case.completed') return [];
  const status = data.case_status;
  const triggers: ActionTrigger[] = ['on_complete'];
  if (status === 'approved') triggers.push('on_approved');
  if (status === 'rejected') triggers.push('on_rejected');
  if (status === 'decision_ready') triggers.push('on_decision_ready');
  return triggers;
}

/**
 * Queues the calls of the action nodes a case event triggers, in the event's transaction: the
 * change, its event and its calls commit together. `onQueued` wakes same-process workers.
 */
export function caseActionEnqueuer(deps: Pick<Deps, 'clock' | 'ids'>, onQueued?: () => void): ActionEnqueuer {
  return async (tx, { caseRow, caseEvent }) => {
    const triggers = triggersOf(caseEvent.event_type, caseEvent.data);
    if (triggers.length === 0) return;
    const definition = await pinnedDefinition(tx, caseRow);
    const nodes = definition.workflow.nodes.filter((n): n is ActionNode => n.type === 'action' && triggers.includes(n.when));
    let queued = 0;
    for (const node of nodes) {
      const added = await insertConnectorCall(tx, {
        callId: deps.ids.next('call'),
        orgId: caseRow.org_id,
        environment: caseRow.environment,
        caseId: caseRow.case_id,
        nodeId: node.node_id,
        connectorKey: node.connector_key,
        operationId: node.operation_id,
        trigger: { event_id: caseEvent.event_id, event_type: caseEvent.event_type, when: node.when },
        now: deps.clock.now(),
      });
      if (added) queued++;
    }
    if (queued > 0) onQueued?.();
  };
}
