/**
 * Why a case sits where it does in the operator queue. Codes are stable API (integrators branch
 * on them); the sentences are for people and may be reworded. docs/queue.md lists them.
 */
export const WHY_HERE = {
  awaiting_applicant_submission: 'Waiting for the applicant to complete and submit the intake.',
  awaiting_follow_up_answers: 'Waiting for the applicant to answer follow-up questions.',
  documents_processing: 'Documents are being processed.',
  awaiting_gate_evaluation: 'Intake is complete; automatic checks are about to run.',
  gates_evaluating: 'Automatic checks are running.',
  review_step_reached: 'The workflow reached its review step: an operator decides.',
  gate_failed: 'An automatic check failed: an operator decides.',
  applicant_corrected_fact: 'The applicant changed a value we read from their document that a check depends on: an operator decides.',
  needs_input_without_applicant: 'Facts need input and there is no applicant to ask: an operator decides.',
  document_failed: 'A document could not be processed: an operator decides.',
  connector_call_failed: 'A workflow action could not call the customer system: retry it once the cause is fixed.',
  completed_approved: 'Completed: approved.',
  completed_rejected: 'Completed: rejected.',
  completed_decision_ready: 'Completed: every check passed; the decision is the customer system’s.',
  completed_abandoned: 'Completed: the session expired before the applicant submitted.',
} as const;

export type WhyHereCode = keyof typeof WHY_HERE;

export const QUEUE_CATEGORIES = ['intake', 'processing', 'follow_up', 'review', 'exception', 'done'] as const;
export type QueueCategory = (typeof QUEUE_CATEGORIES)[number];

export const QUEUE_STATUSES = ['waiting_on_applicant', 'waiting_on_system', 'ready', 'in_review', 'closed'] as const;
export type QueueStatus = (typeof QUEUE_STATUSES)[number];
