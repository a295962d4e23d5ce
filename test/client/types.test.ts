import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  BillingError,
  Dossier,
  DossierError,
  RateLimitError,
  ValidationError,
  verifyWebhook,
  type CaseRecord,
  type CaseStatus,
  type ErrorCode,
  type ErrorCodeOf,
  type ErrorType,
  type ResponseInfo,
  type Session,
  type WebhookEvent,
  type WebhookEventData,
  type WebhookEventType,
} from '@dossier/client';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ErrorCode as ServiceErrorCode, ErrorType as ServiceErrorType } from '../../src/domain/errors.ts';
import type { WebhookEventType as ServiceWebhookEventType } from '../../src/domain/webhooks/event-types.ts';

/*
 * Type-level tests: `expectTypeOf` and `@ts-expect-error` are checked by the compiler, which the
 * last test runs over this file, so a drifting type fails `npm test` and not only `npm run typecheck`.
 */

describe('error codes', () => {
  it('are exactly the service’s catalog, and each subclass narrows them to its type', () => {
    expectTypeOf<ErrorCode>().toEqualTypeOf<ServiceErrorCode>();
    expectTypeOf<ErrorType>().toEqualTypeOf<ServiceErrorType>();
    expectTypeOf<DossierError['code']>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<DossierError['type']>().toEqualTypeOf<ErrorType>();
    expectTypeOf<RateLimitError['code']>().toEqualTypeOf<'rate_limit_exceeded' | 'test_usage_cap_exceeded'>();
    expectTypeOf<BillingError['code']>().toEqualTypeOf<'billing_required' | 'live_usage_cap_exceeded'>();
    expectTypeOf<ValidationError['type']>().toEqualTypeOf<'validation_error'>();
    expectTypeOf<ErrorCodeOf<'authentication_error'>>().toEqualTypeOf<'invalid_api_key'>();
    expectTypeOf<ErrorCodeOf<'precondition_error'>>().toEqualTypeOf<'precondition_required' | 'legal_acceptance_required' | 'self_serve_webhooks_disabled'>();
    expectTypeOf<ValidationError>().toExtend<DossierError>();
    expectTypeOf<RateLimitError['retryAfterMs']>().toEqualTypeOf<number | null>();
    expectTypeOf<DossierError['requestId']>().toEqualTypeOf<string | null>();
  });

  it('refuse a code that is not in the catalog', () => {
    const handle = (error: DossierError) => {
      // @ts-expect-error a typo is not a catalog code
      if (error.code === 'invalid_apikey') return 'never';
      if (error instanceof RateLimitError) {
        // @ts-expect-error a rate-limit error cannot carry a validation code
        if (error.code === 'invalid_limit') return 'never';
        return error.code;
      }
      return error.code;
    };
    expectTypeOf(handle).returns.toEqualTypeOf<ErrorCode | 'never'>();
  });
});

describe('the webhook envelope', () => {
  it('is a union discriminated on event_type, covering the service’s whole catalog', () => {
    expectTypeOf<WebhookEventType>().toEqualTypeOf<ServiceWebhookEventType>();
    expectTypeOf<keyof WebhookEventData>().toEqualTypeOf<WebhookEventType>();
    expectTypeOf<WebhookEvent['event_type']>().toEqualTypeOf<WebhookEventType>();
    expectTypeOf<Extract<WebhookEvent, { event_type: 'v1.case.completed' }>['data']>().toEqualTypeOf<{ case_status: CaseStatus }>();
    expectTypeOf<Extract<WebhookEvent, { event_type: 'v1.case.completed' }>['semantic_event_type']>().toEqualTypeOf<'case.completed'>();
    expectTypeOf<Extract<WebhookEvent, { event_type: 'v1.case.completed' }>['case_id']>().toEqualTypeOf<string>();
    expectTypeOf<Extract<WebhookEvent, { event_type: 'v1.webhook.test' }>['case_id']>().toEqualTypeOf<null>();
    expectTypeOf(verifyWebhook).returns.resolves.toEqualTypeOf<WebhookEvent>();
  });

  it('narrows data in a switch, exhaustively', () => {
    const describeEvent = (event: WebhookEvent): string => {
      switch (event.event_type) {
        case 'v1.case.completed':
          expectTypeOf(event.data.case_status).toEqualTypeOf<CaseStatus>();
          return event.data.case_status;
        case 'v1.case.needs_input':
          return event.data.fact_ids.join(',');
        case 'v1.case.ready_for_review':
          return event.data.reason;
        case 'v1.intake.submitted':
        case 'v1.session.expired':
          return event.data.session_id;
        case 'v1.webhook.delivery_failed':
          return `${event.data.attempts}`;
        case 'v1.webhook.test':
          // @ts-expect-error the test event has no case_status
          return event.data.case_status;
        default: {
          const unreachable: never = event;
          return unreachable;
        }
      }
    };
    expectTypeOf(describeEvent).parameter(0).toEqualTypeOf<WebhookEvent>();
  });
});

describe('requests and responses', () => {
  it('are typed from the OpenAPI document', () => {
    const dossier = new Dossier({ apiKey: 'sk_test_types', baseUrl: 'https://dossier.invalid' });
    expectTypeOf(dossier.sessions.create).returns.resolves.toExtend<Session & { lastResponse: ResponseInfo }>();
    expectTypeOf<Session['idempotent_replay']>().toEqualTypeOf<true | undefined>();
    expectTypeOf<CaseRecord['runtime_status']>().toEqualTypeOf<'processing' | 'intake_in_progress' | 'gate_ready' | 'gate_evaluating' | 'ready_for_review' | 'complete'>();
    expectTypeOf(dossier.request<'getCasePackage'>).returns.resolves.toHaveProperty('case_file_url').toEqualTypeOf<string | null>();
    const misuse = () => {
      // @ts-expect-error case_type_id is required
      void dossier.sessions.create({ external_case_id: 'loan-1' });
      // @ts-expect-error the decision is approve or reject
      void dossier.cases.decide('case_1', { decision: 'approved' });
      // @ts-expect-error queue categories are an enum
      void dossier.cases.list({ queue_category: 'inbox' });
      // @ts-expect-error the path parameter is required
      void dossier.request('getCase', {});
    };
    expectTypeOf(misuse).toBeFunction();
  });

  it('compile: the compiler accepts every assertion above', async () => {
    const root = join(import.meta.dirname, '../..');
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const result = await promisify(execFile)(process.execPath, [tsc, '--noEmit', '-p', join(import.meta.dirname, 'types.tsconfig.json')], { cwd: root }).then(
      () => ({ code: 0, output: '' }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, output: `${error.stdout}${error.stderr}` }),
    );
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  }, 60_000);
});
