import type { AppContext } from '../../domain/deps.ts';
import { ensureDemoWorkspace } from '../../domain/demo/demo-workspace.ts';
import { ensureDemoCase } from '../../domain/demo/demo-case.ts';
import { createSession } from '../../domain/sessions/create-session.ts';
import type { AdminCommand } from './command.ts';

function demoCurl(baseUrl: string, key: string): string {
  const body = JSON.stringify({ case_type_id: 'income_verification', prefill: { full_name: 'Jane Doe' } });
  return (
    `curl -s -X POST ${baseUrl}/api/v1/sessions -H "Authorization: Bearer ${key}" ` +
    `-H "Idempotency-Key: demo-$(date +%s)" -H "Content-Type: application/json" -d '${body}'`
  );
}

/**
 * An applicant link of the demo workspace, to open in a browser at once. One session per UTC day
 * (the idempotency key is the date), so printing it again shows the same link and the monthly
 * test-session allowance is not spent by restarts.
 */
async function demoApplicantLink(ctx: AppContext, demo: { org_id: string; key_id: string }): Promise<string | null> {
  if (ctx.config.appUrl === null) return null;
  const request = { case_type_id: 'income_verification', prefill: { full_name: 'Jane Doe' } };
  const created = await createSession(ctx, {
    key: { keyId: demo.key_id, orgId: demo.org_id, environment: 'test', scopes: ['*'], rateLimitPerMinute: null },
    idempotencyKey: `demo-applicant-link-${ctx.clock.now().toISOString().slice(0, 10)}`,
    rawBody: request,
    request,
    traceId: 'cli:demo',
  });
  if (!created.ok) return null;
  const url = (created.value.body as { signed_url?: unknown }).signed_url;
  return typeof url === 'string' ? url : null;
}

/** The demo workspace (created on first use) with everything needed to try it: key, curl, applicant link, dashboard sign-in, a case to review. */
export async function describeDemo(ctx: AppContext) {
  const demo = await ensureDemoWorkspace(ctx);
  const demoCase = await ensureDemoCase(ctx, demo);
  return {
    ...demo,
    base_url: ctx.config.baseUrl,
    curl: demo.key ? demoCurl(ctx.config.baseUrl, demo.key) : null,
    applicant_link: await demoApplicantLink(ctx, demo),
    dashboard: {
      url: `${ctx.config.baseUrl}/dashboard/login`,
      email: demo.operator.email,
      password: demo.operator.password,
      // The demo case to review (test environment, where a new sign-in starts).
      case_url: demoCase ? `${ctx.config.baseUrl}/dashboard/cases/${demoCase.case_id}` : null,
    },
    demo_case_id: demoCase?.case_id ?? null,
  };
}

export const DEMO_COMMANDS: readonly AdminCommand[] = [
  {
    path: ['demo'],
    usage: 'dossier demo',
    options: {},
    run: (ctx) => describeDemo(ctx),
  },
];
