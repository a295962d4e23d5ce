import type { RuntimeStatus } from './case-state.ts';

/**
 * Every runtime_status transition a case may make (contract §6), and why. Anything not in this
 * table cannot be written: `transitionCase` refuses it before touching storage.
 *
 *   intake_in_progress → processing        uploads are being extracted
 *   intake_in_progress → gate_ready        the applicant submitted and nothing is processing
 *   intake_in_progress → complete          the session expired unsubmitted (abandoned)
 *   processing → intake_in_progress        extraction done, the applicant has not submitted yet
 *   processing → gate_ready                extraction done after submission (or for /process)
 *   processing → complete                  the session expired unsubmitted (abandoned)
 *   gate_ready → gate_evaluating           the worker starts evaluating the gates
 *   gate_evaluating → intake_in_progress   facts need input: follow-up questions for the applicant
 *   gate_evaluating → ready_for_review     a review node, a failed rule, or input with no applicant
 *   gate_evaluating → complete             system_of_record and every gate passed (decision_ready)
 *   ready_for_review → complete            an operator decision (approved or rejected)
 */
export const TRANSITIONS = {
  intake_in_progress: ['processing', 'gate_ready', 'complete'],
  processing: ['intake_in_progress', 'gate_ready', 'complete'],
  gate_ready: ['gate_evaluating'],
  gate_evaluating: ['intake_in_progress', 'ready_for_review', 'complete'],
  ready_for_review: ['complete'],
  complete: [],
} as const satisfies Record<RuntimeStatus, readonly RuntimeStatus[]>;

export const RUNTIME_STATUSES = Object.keys(TRANSITIONS) as RuntimeStatus[];

export type Transition = {
  [From in RuntimeStatus]: { from: From; to: (typeof TRANSITIONS)[From][number] };
}[RuntimeStatus];

export function canTransition(from: RuntimeStatus, to: RuntimeStatus): boolean {
  return (TRANSITIONS[from] as readonly RuntimeStatus[]).includes(to);
}

export class IllegalTransitionError extends Error {
  override name = 'IllegalTransitionError';
  constructor(from: RuntimeStatus, to: RuntimeStatus) {
    super(`illegal case transition ${from} → ${to}`);
  }
}
