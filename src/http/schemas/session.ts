import { z } from 'zod';

export const sessionSchema = z
  .object({
    session_id: z.uuid().meta({ description: 'Session identifier (UUID).' }),
    case_id: z.string().meta({ description: 'The case this session feeds.' }),
    signed_url: z.string().meta({ description: 'Send the applicant here: `{app_url}/s/{session_id}?token=…`.' }),
    expires_at: z.string().meta({ description: 'When the link stops working (ISO 8601 UTC).' }),
    status: z.enum(['open', 'submitted', 'expired']),
    case_type_id: z.string(),
    workflow_version: z.string(),
    external_case_id: z.string().nullable(),
    external_applicant_id: z.string().nullable(),
    external_customer_id: z.string().nullable(),
    created_at: z.string(),
    idempotent_replay: z.literal(true).optional().meta({ description: 'Present, and true, only on a replay.' }),
  })
  .meta({
    id: 'Session',
    description: 'A hosted intake session (spec §2.8).',
    example: {
      session_id: '0b6f7c8e-1d2a-4f5b-9c3d-2e1f0a9b8c7d',
      case_id: 'case_8Kq2mZr4Tn6VwXy0Ab1Cd2Ef',
      signed_url: 'https://dossier.example.com/app/s/0b6f7c8e-1d2a-4f5b-9c3d-2e1f0a9b8c7d?token=Qm9vay1zaWduZWQtdG9rZW4tZXhhbXBsZQ',
      expires_at: '2026-11-23T10:00:00.000Z',
      status: 'open',
      case_type_id: 'income_verification',
      workflow_version: 'v1',
      external_case_id: 'loan-4711',
      external_applicant_id: null,
      external_customer_id: null,
      created_at: '2026-11-22T10:00:00.000Z',
    },
  });

/**
 * The Session resource as `POST /sessions/{session_id}/expire` answers it: `status: expired`, and
 * `signed_url: null`, since the link is shown only when the session is created (its token is
 * stored as a hash) and no longer opens anything.
 */
export const expiredSessionSchema = sessionSchema
  .omit({ idempotent_replay: true })
  .extend({
    signed_url: z.null().meta({ description: 'Always null: the link is shown once, at creation, and an expired session’s link answers 410 Gone.' }),
    expires_at: z.string().meta({ description: 'When the link stopped working: the moment it was expired, or its own expiry if that came first (ISO 8601 UTC).' }),
    status: z.literal('expired'),
  })
  .meta({
    id: 'ExpiredSession',
    description: 'A session after `POST /api/v1/sessions/{session_id}/expire`: the Session resource, with the link withdrawn.',
    example: {
      session_id: '0b6f7c8e-1d2a-4f5b-9c3d-2e1f0a9b8c7d',
      case_id: 'case_8Kq2mZr4Tn6VwXy0Ab1Cd2Ef',
      signed_url: null,
      expires_at: '2026-11-22T10:30:00.000Z',
      status: 'expired',
      case_type_id: 'income_verification',
      workflow_version: 'v1',
      external_case_id: 'loan-4711',
      external_applicant_id: null,
      external_customer_id: null,
      created_at: '2026-11-22T10:00:00.000Z',
    },
  });
