import type { AppContext } from '../deps.ts';
import { readSetting, writeSetting } from '../../storage/settings.ts';
import { inTransaction, lockTransactionKey } from '../../storage/unit-of-work.ts';
import { findApiKeyUnscoped } from '../../storage/api-keys.ts';
import { open, seal } from '../crypto/secret-box.ts';
import { createApiKey } from '../keys/keys.ts';
import { createOrg } from '../orgs/orgs.ts';
import { putCaseType } from '../case-types/case-types.ts';
import { createOperator } from '../operators/operators.ts';
import { findOperatorByEmail } from '../../storage/operators.ts';
import { randomBase62 } from '../../ports/ids.ts';
import addressProof from '../../../examples/case-types/address_proof.json' with { type: 'json' };
import incomeVerification from '../../../examples/case-types/income_verification.json' with { type: 'json' };
import tenancyApplication from '../../../examples/case-types/tenancy_application.json' with { type: 'json' };

/** The example case types every demo workspace gets, in its test environment. */
export const DEMO_CASE_TYPES: readonly unknown[] = [incomeVerification, addressProof, tenancyApplication];

const DEMO_SETTING = 'demo_workspace';
const DEMO_LOCK_KEY = 7_163_411_020;

export interface DemoWorkspace {
  /** True when this call created it (first start). */
  created: boolean;
  org_id: string;
  key_id: string;
  /** The demo test key. Kept sealed under the deployment secret so `dossier demo` can show it again. */
  key: string | null;
  environment: 'test';
  case_type_ids: string[];
  /** The demo operator (an admin), so the dashboard can be tried at once. */
  operator: { email: string; password: string | null };
}

interface StoredDemo {
  org_id: string;
  key_id: string;
  sealed_key: string;
  /** Sealed like the key, so `dossier demo` can print the sign-in again. */
  sealed_operator_password?: string;
}

export const DEMO_OPERATOR_EMAIL = 'demo@example.com';

/**
 * The demo workspace: created once per deployment, then found again. A revoked demo key is
 * replaced, so `dossier demo` always prints a key that works.
 */
export async function ensureDemoWorkspace(ctx: AppContext): Promise<DemoWorkspace> {
  return inTransaction(ctx.db, async (trx) => {
    await lockTransactionKey(trx, DEMO_LOCK_KEY);
    const deps = { ...ctx, db: trx };
    const now = ctx.clock.now();
    const storedText = await readSetting(trx, DEMO_SETTING);
    const stored = storedText ? (JSON.parse(storedText) as StoredDemo) : undefined;

    const orgId = stored?.org_id ?? (await createOrg(deps, { name: 'Demo workspace', acceptLegal: true })).org_id;
    for (const definition of DEMO_CASE_TYPES) {
      const put = await putCaseType(deps, { orgId, environment: 'test', definition });
      if (!put.ok) throw new Error(`demo case type is invalid: ${JSON.stringify(put.problems)}`);
    }
    const caseTypeIds = DEMO_CASE_TYPES.map((d) => (d as { case_type_id: string }).case_type_id);
    const operator = await ensureDemoOperator(deps, orgId, stored, ctx.secret);
    const existingKey = stored ? await findApiKeyUnscoped(trx, stored.key_id) : undefined;
    const keyUsable = existingKey && existingKey.revoked_at === null && (existingKey.expires_at ?? new Date(8.64e15)) > now;
    if (stored && keyUsable) {
      return {
        created: false,
        org_id: orgId,
        key_id: stored.key_id,
        key: open(ctx.secret, { purpose: 'demo-key', owner: orgId }, stored.sealed_key) ?? null,
        environment: 'test',
        case_type_ids: caseTypeIds,
        operator: { email: DEMO_OPERATOR_EMAIL, password: operator.password },
      };
    }
    const key = await createApiKey(deps, { orgId, environment: 'test', scopes: ['*'], name: 'Demo key' });
    if (!key.ok) throw new Error(`demo key: ${key.message}`);
    const next: StoredDemo = {
      org_id: orgId,
      key_id: key.value.key_id,
      sealed_key: seal(ctx.secret, { purpose: 'demo-key', owner: orgId }, key.value.key),
      ...(operator.sealed ? { sealed_operator_password: operator.sealed } : {}),
    };
    await writeSetting(trx, DEMO_SETTING, JSON.stringify(next), now);
    return {
      created: !stored,
      org_id: orgId,
      key_id: key.value.key_id,
      key: key.value.key,
      environment: 'test',
      case_type_ids: caseTypeIds,
      operator: { email: DEMO_OPERATOR_EMAIL, password: operator.password },
    };
  });
}

/**
 * The demo operator, an admin of the demo workspace with a generated password. Created once; a
 * deployment whose demo predates operators gets one on the next `dossier demo`.
 */
async function ensureDemoOperator(
  deps: Parameters<typeof createOperator>[0],
  orgId: string,
  stored: StoredDemo | undefined,
  secret: string,
): Promise<{ password: string | null; sealed: string | undefined }> {
  if (stored?.sealed_operator_password && (await findOperatorByEmail(deps.db, DEMO_OPERATOR_EMAIL))) {
    return { password: open(secret, { purpose: 'demo-operator', owner: orgId }, stored.sealed_operator_password) ?? null, sealed: stored.sealed_operator_password };
  }
  const password = randomBase62(20);
  const created = await createOperator(deps, { orgId, email: DEMO_OPERATOR_EMAIL, password, role: 'admin' });
  if (!created.ok) return { password: null, sealed: undefined };
  const sealed = seal(secret, { purpose: 'demo-operator', owner: orgId }, password);
  if (stored) await writeSetting(deps.db, DEMO_SETTING, JSON.stringify({ ...stored, sealed_operator_password: sealed }), deps.clock.now());
  return { password, sealed };
}
