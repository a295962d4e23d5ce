import type { Environment } from '../../config.ts';
import type { Deps } from '../deps.ts';
import {
  findCaseType,
  findCaseTypeVersion,
  insertCaseTypeVersion,
  listCaseTypeVersionsWithCaseCounts,
  latestCaseTypeVersion,
  selectCaseTypes,
  upsertCaseType,
  type CaseTypeRow,
} from '../../storage/case-types.ts';
import { inTransaction, lockTransactionKey } from '../../storage/unit-of-work.ts';
import type { Executor } from '../../storage/schema.ts';
import { canonicalJson, sha256Hex } from '../canonical-json.ts';
import { fail, ok, type Result } from '../errors.ts';
import { checkActionNodes, type ActionOperation } from './action-validation.ts';
import { listConnectorRows } from '../../storage/connectors.ts';
import { parseCaseTypeDefinition, type CaseTypeDefinition, type DefinitionProblem } from './definition.ts';
import type { Tenant } from '../../ports/tenant.ts';

export interface CaseTypeView {
  case_type_id: string;
  name: string;
  environment: Environment;
  operating_mode: string;
  workflow_id: string;
  workflow_version: string;
  definition: CaseTypeDefinition;
  created_at: string;
  updated_at: string;
}

export function toCaseTypeView(row: CaseTypeRow): CaseTypeView {
  return {
    case_type_id: row.case_type_id,
    name: row.name,
    environment: row.environment,
    operating_mode: row.operating_mode,
    workflow_id: row.workflow_id,
    workflow_version: row.workflow_version,
    definition: row.definition as CaseTypeDefinition,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * What a pinned case reads: the display name is not part of it, so renaming keeps the version.
 * The applicant's texts are (labels already were, in the workflow): a case reads its pinned
 * version, so a new translation reaches new cases only through a new version. They join the hash
 * only when present, so a definition without them keeps the hash it always had.
 */
function behaviourHash(def: CaseTypeDefinition): string {
  return sha256Hex(
    canonicalJson({
      operating_mode: def.operating_mode,
      facts: def.facts,
      workflow: def.workflow,
      ...(def.finish ? { finish: def.finish } : {}),
      ...(def.translations ? { translations: def.translations } : {}),
    }),
  );
}

export type PutCaseTypeOutcome =
  | { ok: true; value: { case_type_id: string; environment: Environment; workflow_version: string; version_created: boolean; warnings: DefinitionProblem[] } }
  | { ok: false; problems: DefinitionProblem[] };

/**
 * Stores a case type. A changed workflow (or facts, or operating mode) gets the next
 * `workflow_version`; cases already started keep the version they were created with.
 */
export async function putCaseType(
  deps: Pick<Deps, 'db' | 'clock'>,
  input: { orgId: string; environment: Environment; definition: unknown },
): Promise<PutCaseTypeOutcome> {
  const parsed = parseCaseTypeDefinition(input.definition);
  if (!parsed.ok) return parsed;
  const def = parsed.value;
  if (def.workflow.nodes.some((n) => n.type === 'action')) {
    const rows = await listConnectorRows(deps.db, input);
    const connectors = new Map(rows.map((r) => [r.connector_key, r.operations as ActionOperation[]]));
    const problems = checkActionNodes(def, connectors);
    if (problems.length > 0) return { ok: false, problems };
  }
  const hash = behaviourHash(def);
  const now = deps.clock.now();
  return inTransaction(deps.db, async (tx) => {
    // Serialise concurrent puts of one case type so version numbers never collide.
    await lockTransactionKey(tx, `${input.orgId}:${input.environment}:${def.case_type_id}`);
    const latest = await latestCaseTypeVersion(tx, input, def.case_type_id);
    const versionCreated = latest?.definition_hash !== hash;
    const versionNumber = versionCreated ? (latest?.version_number ?? 0) + 1 : latest!.version_number;
    const workflowVersion = `v${versionNumber}`;
    await upsertCaseType(tx, {
      org_id: input.orgId,
      environment: input.environment,
      case_type_id: def.case_type_id,
      name: def.name,
      operating_mode: def.operating_mode,
      workflow_id: def.workflow.workflow_id,
      workflow_version: workflowVersion,
      definition: def,
      now,
    });
    if (versionCreated) {
      await insertCaseTypeVersion(tx, {
        org_id: input.orgId,
        environment: input.environment,
        case_type_id: def.case_type_id,
        workflow_version: workflowVersion,
        version_number: versionNumber,
        definition_hash: hash,
        definition: def,
        created_at: now,
      });
    }
    return { ok: true, value: { case_type_id: def.case_type_id, environment: input.environment, workflow_version: workflowVersion, version_created: versionCreated, warnings: parsed.warnings } };
  });
}

export async function listCaseTypes(deps: Pick<Deps, 'db'>, input: { orgId: string; environment: Environment }): Promise<CaseTypeView[]> {
  const { orgId, environment } = input;
  return (await selectCaseTypes(deps.db, { orgId, environment })).map(toCaseTypeView);
}

export async function getCaseType(
  deps: Pick<Deps, 'db'>,
  input: { orgId: string; environment: Environment; caseTypeId: string },
): Promise<Result<CaseTypeView>> {
  const { orgId, environment, caseTypeId } = input;
  const row = await findCaseType(deps.db, { orgId, environment }, caseTypeId);
  return row ? ok(toCaseTypeView(row)) : fail('not_found', `No case type "${caseTypeId}" in this ${environment} workspace.`);
}

/**
 * Workflow versions never change once written, so each process keeps the ones it has read: case
 * reads, gate jobs and session creation all need the pinned definition, and the cache spares each
 * of them a round trip (issue 16). Bounded; the key names org, environment, type and version.
 */
const pinnedDefinitions = new Map<string, CaseTypeDefinition>();
const PINNED_CACHE_LIMIT = 2_000;

/** The definition of one workflow version, from this process's cache when it has read it before. */
export async function loadPinnedDefinition(
  deps: { db: Executor },
  input: { tenant: Tenant; caseTypeId: string; workflowVersion: string },
): Promise<CaseTypeDefinition> {
  const { tenant, caseTypeId, workflowVersion } = input;
  const key = `${tenant.orgId}\u0000${tenant.environment}\u0000${caseTypeId}\u0000${workflowVersion}`;
  const hit = pinnedDefinitions.get(key);
  if (hit) return hit;
  const row = await findCaseTypeVersion(deps.db, tenant, caseTypeId, workflowVersion);
  if (!row) throw new Error(`case type version ${caseTypeId}@${workflowVersion} is missing`);
  const definition = row.definition as CaseTypeDefinition;
  if (pinnedDefinitions.size >= PINNED_CACHE_LIMIT) pinnedDefinitions.delete(pinnedDefinitions.keys().next().value as string);
  pinnedDefinitions.set(key, definition);
  return definition;
}

export interface CaseTypeVersionView {
  workflow_version: string;
  created_at: string;
  /** Cases created on this version (they keep it for their whole life). */
  cases: number;
}

/** Each case type's workflow versions, newest first, with the number of cases pinned to each. */
export async function listCaseTypeVersions(
  deps: Pick<Deps, 'db'>,
  input: { orgId: string; environment: Environment },
): Promise<Map<string, CaseTypeVersionView[]>> {
  const { orgId, environment } = input;
  const out = new Map<string, CaseTypeVersionView[]>();
  for (const r of await listCaseTypeVersionsWithCaseCounts(deps.db, { orgId, environment })) {
    const list = out.get(r.case_type_id) ?? [];
    list.push({ workflow_version: r.workflow_version, created_at: r.created_at.toISOString(), cases: r.cases });
    out.set(r.case_type_id, list);
  }
  return out;
}
