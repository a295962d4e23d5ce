import { readFileSync } from 'node:fs';
import { putCaseType } from '../../src/domain/case-types/case-types.ts';
import type { SessionCreateParams } from '@dossier/client';
import { dossierFor } from './dossier-client.ts';
import type { TestApp, TestWorkspace } from './harness.ts';

export const incomeVerification = JSON.parse(readFileSync(new URL('../../examples/case-types/income_verification.json', import.meta.url), 'utf8')) as Record<string, unknown>;
export const addressProof = JSON.parse(readFileSync(new URL('../../examples/case-types/address_proof.json', import.meta.url), 'utf8')) as Record<string, unknown>;
/** The example whose form uses phone, address, one_of, money with a currency and checkbox fields. */
export const tenancyApplication = JSON.parse(readFileSync(new URL('../../examples/case-types/tenancy_application.json', import.meta.url), 'utf8')) as Record<string, unknown>;

/** Puts the example case types into a workspace's test and live environments. */
export async function withExampleCaseTypes(t: TestApp, orgId: string): Promise<void> {
  for (const definition of [incomeVerification, addressProof]) {
    for (const environment of ['test', 'live'] as const) {
      const put = await putCaseType(t.ctx, { orgId, environment, definition });
      if (!put.ok) throw new Error(JSON.stringify(put.problems));
    }
  }
}

let counter = 0;
export function uniqueKey(prefix = 'idem'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now()}-${counter}`;
}

/** Creates a session with the client, as a customer's backend would; throws unless it is created. */
export async function newSession(t: TestApp, ws: TestWorkspace, caseTypeId: string, extra: Omit<SessionCreateParams, 'case_type_id'> = {}) {
  const session = await dossierFor(t, ws).sessions.create({ ...extra, case_type_id: caseTypeId });
  if (session.lastResponse.status !== 201) throw new Error(`expected 201, got ${session.lastResponse.status}`);
  return { ...session, token: new URL(session.signed_url).searchParams.get('token')! };
}

/** What the applicant app presents for a session: its id and the signed link's token. */
export interface ApplicantSession {
  session_id: string;
  token: string;
}
