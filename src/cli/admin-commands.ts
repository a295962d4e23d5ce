import { parseArgs, type ParseArgsConfig } from 'node:util';
import { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import { ensureDemoWorkspace } from '../domain/demo/demo-workspace.ts';
import { ensureDemoCase } from '../domain/demo/demo-case.ts';
import { createSession } from '../domain/sessions/create-session.ts';
import { createApiKey, revokeApiKey } from '../domain/keys/keys.ts';
import { createOrg, getOrg, updateOrg } from '../domain/orgs/orgs.ts';
import type { Result } from '../domain/errors.ts';
import type { Runtime } from '../runtime.ts';
import { readFile } from 'node:fs/promises';
import { ENVIRONMENTS, type Environment } from '../config.ts';
import { getCaseType, listCaseTypes, putCaseType } from '../domain/case-types/case-types.ts';
import { cliError, type CliError } from './output.ts';
import { ENDPOINT_COMMANDS } from './commands/endpoint.ts';
import { OPERATOR_COMMANDS } from './commands/operator.ts';
import { BACKUP_COMMANDS } from './commands/backup.ts';

/**
 * The commands that act on stored state. They run in-process against the database, or, when a
 * server owns the embedded database, inside that server through the admin socket: the same code
 * either way, so the answer cannot depend on the route it took.
 */
interface AdminCommand {
  path: readonly string[];
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  positionals?: number;
  run(ctx: AppContext, values: Record<string, unknown>, positionals: string[], runtime: Runtime): Promise<object>;
}

export interface CommandOutcome {
  exitCode: number;
  result: object;
}

class UsageError extends Error {}

function unwrapOrReport<T extends object>(result: Result<T>): T | CliError {
  return result.ok ? result.value : cliError(result.code, result.message);
}

const durationPattern = /^(\d+)([smhd])$/;
const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

export function parseDurationSeconds(text: string): number {
  const match = durationPattern.exec(text);
  if (!match) throw new UsageError(`invalid duration "${text}": use a number followed by s, m, h or d (e.g. 30d)`);
  const seconds = Number(match[1]) * UNIT_SECONDS[match[2] as keyof typeof UNIT_SECONDS];
  if (seconds <= 0) throw new UsageError('a duration must be positive');
  return seconds;
}

function parseCount(text: unknown, flag: string): number {
  const n = Number(text);
  if (typeof text !== 'string' || !/^\d+$/.test(text) || !Number.isSafeInteger(n)) {
    throw new UsageError(`${flag} needs a whole number, got "${String(text)}"`);
  }
  return n;
}

function parseBilling(value: unknown): 'active' | 'inactive' | undefined {
  if (value === undefined) return undefined;
  const parsed = z.enum(['active', 'inactive']).safeParse(value);
  if (!parsed.success) throw new UsageError(`--billing must be active or inactive, got "${String(value)}"`);
  return parsed.data;
}

async function getOrgExists(ctx: AppContext, orgId: string): Promise<boolean> {
  return (await getOrg(ctx, { orgId })).ok;
}

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

function parseEnvironment(value: unknown, flag = '--env'): Environment {
  if (!ENVIRONMENTS.includes(value as Environment)) throw new UsageError(`${flag} must be test or live`);
  return value as Environment;
}

function requireString(value: unknown, flag: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`${flag} is required`);
  return value;
}

async function readJsonFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new UsageError(`${path} is not valid JSON: ${(err as Error).message}`);
  }
}

export const ADMIN_COMMANDS: readonly AdminCommand[] = [
  {
    path: ['case-type', 'put'],
    usage: 'dossier case-type put --org ORG_ID [--env test|live] --file FILE.json   (no --env: both environments)',
    options: { org: { type: 'string' }, env: { type: 'string' }, file: { type: 'string' } },
    async run(ctx, v) {
      const orgId = requireString(v.org, '--org');
      const environments = v.env === undefined ? [...ENVIRONMENTS] : [parseEnvironment(v.env)];
      const definition = await readJsonFile(requireString(v.file, '--file'));
      if (!(await getOrgExists(ctx, orgId))) return cliError('not_found', `No organization ${orgId}.`);
      const results = [];
      for (const environment of environments) {
        const put = await putCaseType(ctx, { orgId, environment, definition });
        if (!put.ok) {
          return {
            error: {
              code: 'invalid_request',
              message: `the case type has ${put.problems.length} problem${put.problems.length === 1 ? '' : 's'}`,
              problems: put.problems,
            },
          };
        }
        results.push(put.value);
      }
      return { case_type_id: results[0]!.case_type_id, results };
    },
  },
  {
    path: ['case-type', 'list'],
    usage: 'dossier case-type list --org ORG_ID --env test|live',
    options: { org: { type: 'string' }, env: { type: 'string' } },
    async run(ctx, v) {
      const types = await listCaseTypes(ctx, { orgId: requireString(v.org, '--org'), environment: parseEnvironment(v.env) });
      return { case_types: types.map(({ definition: _d, ...rest }) => rest) };
    },
  },
  {
    path: ['case-type', 'show'],
    usage: 'dossier case-type show CASE_TYPE_ID --org ORG_ID --env test|live',
    options: { org: { type: 'string' }, env: { type: 'string' } },
    positionals: 1,
    async run(ctx, v, [caseTypeId]) {
      return unwrapOrReport(await getCaseType(ctx, { orgId: requireString(v.org, '--org'), environment: parseEnvironment(v.env), caseTypeId: caseTypeId! }));
    },
  },
  {
    path: ['migrate'],
    usage: 'dossier migrate',
    options: {},
    // The runtime migrates as it opens; running again reports every step as already applied.
    run: async (_ctx, _v, _p, runtime) => runtime.migrations,
  },
  {
    path: ['org', 'create'],
    usage: 'dossier org create --name NAME [--billing active|inactive] [--accept-legal]',
    options: { name: { type: 'string' }, billing: { type: 'string' }, 'accept-legal': { type: 'boolean' } },
    async run(ctx, v) {
      if (typeof v.name !== 'string' || v.name.trim() === '') throw new UsageError('--name is required');
      const billing = parseBilling(v.billing);
      return createOrg(ctx, { name: v.name, ...(billing ? { billing } : {}), acceptLegal: v['accept-legal'] === true });
    },
  },
  {
    path: ['org', 'update'],
    usage: 'dossier org update ORG_ID [--billing active|inactive] [--accept-legal] [--live-usage-cap N|none]',
    options: { billing: { type: 'string' }, 'accept-legal': { type: 'boolean' }, 'live-usage-cap': { type: 'string' } },
    positionals: 1,
    async run(ctx, v, [orgId]) {
      const billing = parseBilling(v.billing);
      const cap = v['live-usage-cap'];
      const liveUsageCap = cap === undefined ? undefined : cap === 'none' ? null : parseCount(cap, '--live-usage-cap');
      return unwrapOrReport(
        await updateOrg(ctx, {
          orgId: orgId!,
          ...(billing ? { billing } : {}),
          acceptLegal: v['accept-legal'] === true,
          ...(liveUsageCap !== undefined ? { liveUsageCap } : {}),
        }),
      );
    },
  },
  {
    path: ['key', 'create'],
    usage:
      "dossier key create --org ORG_ID --env test|live --scopes a,b|'*' [--name N] [--expires-in 30d] [--rate-limit N]",
    options: {
      org: { type: 'string' },
      env: { type: 'string' },
      scopes: { type: 'string' },
      name: { type: 'string' },
      'expires-in': { type: 'string' },
      'rate-limit': { type: 'string' },
    },
    async run(ctx, v) {
      if (typeof v.org !== 'string') throw new UsageError('--org is required');
      if (v.env !== 'test' && v.env !== 'live') throw new UsageError('--env must be test or live');
      if (typeof v.scopes !== 'string' || v.scopes.trim() === '') throw new UsageError("--scopes is required (a,b or '*')");
      const scopes = v.scopes.split(',').map((s) => s.trim()).filter(Boolean);
      const parsed = await createApiKey(ctx, {
        orgId: v.org,
        environment: v.env,
        scopes,
        ...(typeof v.name === 'string' ? { name: v.name } : {}),
        ...(typeof v['expires-in'] === 'string' ? { expiresInSeconds: parseDurationSeconds(v['expires-in']) } : {}),
        ...(v['rate-limit'] !== undefined ? { rateLimitPerMinute: parseCount(v['rate-limit'], '--rate-limit') } : {}),
      }).catch((err: unknown) => {
        if (err instanceof z.ZodError) throw new UsageError(err.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
        throw err;
      });
      return unwrapOrReport(parsed);
    },
  },
  {
    path: ['key', 'revoke'],
    usage: 'dossier key revoke KEY_ID',
    options: {},
    positionals: 1,
    async run(ctx, _v, [keyId]) {
      const revoked = await revokeApiKey(ctx, { keyId: keyId! });
      if (revoked.ok) ctx.keys.forget(keyId!);
      return unwrapOrReport(revoked);
    },
  },
  {
    path: ['demo'],
    usage: 'dossier demo',
    options: {},
    run: (ctx) => describeDemo(ctx),
  },
  ...ENDPOINT_COMMANDS,
  ...OPERATOR_COMMANDS,
  ...BACKUP_COMMANDS,
];

export function findAdminCommand(argv: readonly string[]): AdminCommand | undefined {
  return ADMIN_COMMANDS.find((c) => c.path.every((word, i) => argv[i] === word));
}

interface ParsedCommand {
  command: AdminCommand;
  values: Record<string, unknown>;
  positionals: string[];
}

/** Parses argv against the command's options: a usage problem is found before any database is opened. */
export function parseAdminCommand(argv: readonly string[]): ParsedCommand | CommandOutcome {
  const command = findAdminCommand(argv);
  if (!command) return { exitCode: 2, result: cliError('invalid_request', `unknown command: ${argv.join(' ')}`) };
  try {
    const { values, positionals } = parseArgs({
      args: argv.slice(command.path.length).filter((a) => a !== '--json'),
      options: command.options,
      allowPositionals: true,
      strict: true,
    });
    const expected = command.positionals ?? 0;
    if (positionals.length !== expected) {
      throw new UsageError(`expected ${expected} argument${expected === 1 ? '' : 's'}; usage: ${command.usage}`);
    }
    return { command, values, positionals };
  } catch (err) {
    return usageOutcome(err, command);
  }
}

function usageOutcome(err: unknown, command: AdminCommand): CommandOutcome {
  if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    return { exitCode: 2, result: cliError('invalid_request', `${(err as Error).message}; usage: ${command.usage}`) };
  }
  if (err instanceof z.ZodError) {
    return { exitCode: 2, result: cliError('invalid_request', err.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')) };
  }
  throw err;
}

/** Parses and runs one admin command; a usage problem or a domain failure becomes an error object. */
export async function executeAdminCommand(runtime: Runtime, argv: readonly string[]): Promise<CommandOutcome> {
  const parsed = parseAdminCommand(argv);
  if (!('command' in parsed)) return parsed;
  try {
    const result = await parsed.command.run(runtime.ctx, parsed.values, parsed.positionals, runtime);
    return { exitCode: 'error' in result ? 1 : 0, result };
  } catch (err) {
    return usageOutcome(err, parsed.command);
  }
}
