import type { BlobStore } from '../../ports/blob-store.ts';
import type { Db } from '../../storage/schema.ts';
import type { WriterDeps } from '../cases/case-writer.ts';
import { fail, type Result } from '../errors.ts';
import type { ApplicantProof } from '../intake/applicant-access.ts';
import { loadApplicantIntake, uploadApplicantDocument, type UploadOutcome } from '../intake/applicant-intake.ts';
import { drawSampleDocument } from './sample-document.ts';
import type { SampleOutcome } from './sample-url.ts';

/**
 * "Use a sample document" on an upload step of a test session: the sample is drawn from the
 * session's case type and the answers saved so far (so the name on it is the name the applicant
 * typed), then uploaded exactly as a chosen file is (the same checks, events and job), keeping its
 * `dossier-test:` address as the document's `source_url`.
 */
export async function uploadSampleDocument(
  deps: WriterDeps & { db: Db; blobs: BlobStore },
  input: ApplicantProof & { documentKind: string; outcome: SampleOutcome; traceId: string; replaces?: string | undefined },
): Promise<Result<UploadOutcome>> {
  const loaded = await loadApplicantIntake(deps, input);
  if (!loaded.ok) return loaded;
  const intake = loaded.value;
  if (intake.environment !== 'test') return fail('invalid_request', 'Sample documents are for test mode only.');
  const drawn = await drawSampleDocument({
    definition: intake.definition,
    address: { caseTypeId: intake.definition.case_type_id, kindOrNode: input.documentKind, outcome: input.outcome },
    answers: intake.answers,
    now: deps.clock.now(),
  });
  if (!drawn.ok) return fail('invalid_request', drawn.message);
  const { sessionId, token, traceId, replaces } = input;
  return uploadApplicantDocument(deps, {
    sessionId,
    token,
    traceId,
    replaces,
    documentKind: drawn.value.plan.documentKind,
    filename: drawn.value.filename,
    bytes: drawn.value.bytes,
    sampleUrl: drawn.value.sourceUrl,
  });
}
