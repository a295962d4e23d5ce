import type { Environment } from '../../config.ts';
import type { CaseTypeDefinition } from '../case-types/definition.ts';
import type { ConnectorCallStatus } from '../../storage/tables/connectors.ts';
import type {
  CaseStatus,
  DocumentStatus,
  FactSource,
  FactStatus,
  HandoffState,
  JobStatus,
  OperatingMode,
  RuntimeStatus,
  SessionStatus,
} from '../../storage/tables/cases.ts';

export type { CaseStatus, DocumentStatus, FactSource, FactStatus, HandoffState, JobStatus, OperatingMode, RuntimeStatus, SessionStatus };

export type { Evidence, Provenance } from '../extraction/types.ts';
import type { Evidence, Provenance } from '../extraction/types.ts';

export interface FactState {
  factId: string;
  label: string;
  status: FactStatus;
  value: string | null;
  candidateId: string | null;
  anchorMatchQuality: number | null;
  source: FactSource | null;
  reasonCodes: string[];
  provenance: Provenance[];
  evidence: Evidence[];
  verificationMetadata: unknown[];
  /** Who changed the value by hand last, if anyone (issue 26). */
  correctedBy?: 'applicant' | 'operator' | null;
  updatedAt: Date;
}

export interface DocumentState {
  docId: string;
  documentKind: string | null;
  filename: string | null;
  status: DocumentStatus;
  failureReason: string | null;
  mimeType: string | null;
  byteSize: number | null;
  sha256: string | null;
  pageCount: number | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface JobState {
  jobId: string;
  kind: string;
  status: JobStatus;
  subjectId: string | null;
  attempts: number;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The call of one workflow action node (issue 14), once its trigger has fired. */
export interface ActionCallState {
  nodeId: string;
  status: ConnectorCallStatus;
  attemptCount: number;
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastDurationMs: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  externalReference: string | null;
  updatedAt: Date;
}

export interface SessionState {
  sessionId: string;
  status: SessionStatus;
  expiresAt: Date;
  submittedAt: Date | null;
  createdAt: Date;
}

export type RuleOutcome = 'passed' | 'failed' | 'needs_input';

export interface GateRuleResult {
  gate_id: string;
  rule_id: string;
  type: string;
  outcome: RuleOutcome;
  why: string;
  fact_ids: string[];
  detail: Record<string, unknown>;
}

export interface Handoff {
  handoffState: HandoffState;
  deliveryId: string | null;
  acknowledgedAt: Date | null;
}

/** Everything known about one case: the single input of the projection. */
export interface CaseState {
  caseId: string;
  orgId: string;
  environment: Environment;
  caseTypeId: string;
  workflowId: string;
  workflowVersion: string;
  operatingMode: OperatingMode;
  runtimeStatus: RuntimeStatus;
  origin: 'session' | 'process';
  externalCaseId: string | null;
  externalApplicantId: string | null;
  externalCustomerId: string | null;
  metadata: Record<string, string>;
  locale: string | null;
  structuredInputs: Record<string, unknown>;
  prefill: Record<string, unknown>;
  currentNodeId: string | null;
  currentGateId: string | null;
  /** Outcomes of the latest gate evaluation, rule by rule. */
  gateResults: GateRuleResult[];
  caseStatus: CaseStatus | null;
  decisionReason: string | null;
  /** The operator who took the case (issue 27 §3), or null. */
  assignedTo: string | null;
  completedAt: Date | null;
  handoff: Handoff | null;
  statusChangedAt: Date;
  createdAt: Date;
  updatedAt: Date;
  definition: CaseTypeDefinition;
  facts: FactState[];
  documents: DocumentState[];
  jobs: JobState[];
  /** Calls of action nodes whose trigger fired; absent when none has. */
  actions?: ActionCallState[];
  session: SessionState | null;
}
