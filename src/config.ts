import { z } from 'zod';

/** Environments a key (and every tenant-owned row) belongs to. */
export const ENVIRONMENTS = ['test', 'live'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** The legal terms a live workspace must have accepted; bump when the terms change. */
export const CURRENT_LEGAL_TERMS_VERSION = '2026-01-01';

const booleanString = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const positiveInt = z.coerce.number().int().positive();

const urlWithoutTrailingSlash = z
  .url({ protocol: /^https?$/ })
  .transform((v) => v.replace(/\/+$/, ''));

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  BASE_URL: urlWithoutTrailingSlash.optional(),
  /** `none`: this deployment has no applicant app (API-only): no signed links can be made. */
  APP_URL: z.union([z.literal('none'), urlWithoutTrailingSlash]).optional(),
  DATABASE_URL: z.string().min(1).optional(),
  DATA_DIR: z.string().min(1).default('./.dossier'),
  REDIS_URL: z.string().min(1).optional(),
  DOSSIER_SECRET: z.string().min(32, 'DOSSIER_SECRET must be at least 32 characters').optional(),
  ACCEPTED_KEY_ENVIRONMENTS: z
    .string()
    .default('test,live')
    .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean))
    .pipe(z.array(z.enum(ENVIRONMENTS)).min(1)),
  /**
   * Which peers may tell us the client's address in X-Forwarded-For: unset, no one (the socket's
   * peer is the client); a number, that many proxy hops in front; else a comma-separated list of
   * proxy addresses and CIDR ranges. "Trust everyone" is refused: any client could then pick the
   * address every per-address limit counts.
   */
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const value = v?.trim() ?? '';
      if (value === '' || value === 'false') return false as const;
      if (/^\d+$/.test(value)) return Number(value);
      if (value === 'true' || value === '*') {
        ctx.addIssue({ code: 'custom', message: 'TRUST_PROXY cannot trust every peer: give the proxies\' addresses or CIDR ranges, or a hop count' });
        return z.NEVER;
      }
      return value.split(',').map((s) => s.trim()).filter(Boolean);
    }),
  RATE_LIMIT_PER_MINUTE: positiveInt.default(600),
  /** Failed authentications one client address may make per minute before 429 (checked before any query). */
  AUTH_FAILURES_PER_MINUTE: positiveInt.default(30),
  TEST_SESSIONS_PER_MONTH: z.coerce.number().int().min(0).default(50),
  WEBHOOK_RETRY_DELAYS: z
    .string()
    .default('60,300,1800,7200')
    .transform((v) => v.split(',').map((s) => Number(s.trim())))
    .pipe(z.array(z.number().finite().nonnegative()).length(4, 'WEBHOOK_RETRY_DELAYS needs four delays (5 attempts)')),
  WEBHOOK_TIMEOUT_MS: positiveInt.default(10_000),
  /** Seconds between a workflow action's attempts; one more attempt than delays. */
  CONNECTOR_RETRY_DELAYS: z
    .string()
    .default('30,120,600')
    .transform((v) => v.split(',').map((s) => Number(s.trim())))
    .pipe(z.array(z.number().finite().nonnegative()).min(1).max(10, 'CONNECTOR_RETRY_DELAYS takes at most ten delays')),
  CONNECTOR_TIMEOUT_MS: positiveInt.max(60_000).default(10_000),
  SELF_SERVE_WEBHOOKS: booleanString.default(true),
  DOSSIER_ALLOW_PRIVATE_NETWORK: booleanString.default(false),
  /** Check every response against its schema (tests turn this on; it costs throughput). */
  VALIDATE_RESPONSES: booleanString.default(false),
  /** Unset: no /metrics endpoint. Set: /metrics answers only `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: z.string().min(16, 'METRICS_TOKEN must be at least 16 characters').optional(),
  WEBHOOK_RETENTION_DAYS: positiveInt.default(30),
  /** Unset: documents are kept until erased by hand (or by a case type's own retention). */
  DOCUMENT_RETENTION_DAYS: positiveInt.optional(),
  /** Child processes that extract documents at once (each uses a core while it works). */
  EXTRACTION_PROCESSES: positiveInt.default(2),
  /**
   * `dossier worker`'s processes: 1 runs the jobs in the process itself; N > 1 starts N worker
   * processes (a worker per core) and restarts one that dies. `--concurrency N` overrides it.
   */
  WORKER_PROCESSES: positiveInt.default(1),
  /** Resident memory one extraction process may use before it is killed. */
  EXTRACTION_MEMORY_MB: positiveInt.default(1536),
  /** How long a `slow` sample document (dossier-test:…/slow, test mode) takes to read. */
  SIMULATED_SLOW_READ_MS: z.coerce.number().int().min(0).max(600_000).default(20_000),
  /**
   * Where document originals and page images go: unset or `database` (the `document_blobs` and
   * `document_page_images` tables, as before), or `s3://bucket/prefix` (any S3-compatible store;
   * the database keeps the object key and the sealed data key).
   */
  DOCUMENT_STORE: z
    .string()
    .regex(/^(database|s3:\/\/[a-z0-9][a-z0-9.\-]{1,61}[a-z0-9](\/.*)?)$/, 'DOCUMENT_STORE must be `database` or s3://bucket/prefix')
    .optional(),
  /** With DOCUMENT_STORE=s3://…: `database` sends new documents to the database while the objects are still read (moving back). */
  DOCUMENT_STORE_WRITES: z.enum(['object', 'database']).default('object'),
  /** The S3 endpoint (MinIO, R2, Ceph RGW, a test server); unset: AWS's own for S3_REGION. Path-style addressing when set. */
  S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  /** Unset: the SDK's own chain (shared config file, instance or task role). */
  AWS_ACCESS_KEY_ID: z.string().min(1).optional(),
  AWS_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  AWS_SESSION_TOKEN: z.string().min(1).optional(),
  /**
   * Unset: invitations are shown to the admin as a link to pass on. Set (smtp://user:pass@host:587,
   * smtps://…:465): Dossier mails them. Given by the deployment's operator, so not an outbound
   * address the SSRF policy judges.
   */
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'SMTP_URL must be smtp://host:port or smtps://host:port' }).optional(),
  /** The From of Dossier's mail; unset: `Dossier <no-reply@BASE_URL's host>`. */
  MAIL_FROM: z.string().min(3).max(200).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  /** The applicant app address, or null when the deployment has none (APP_URL=none). */
  appUrl: string | null;
  databaseUrl: string | undefined;
  dataDir: string;
  redisUrl: string | undefined;
  secret: string | undefined;
  acceptedKeyEnvironments: readonly Environment[];
  /** Fastify's `trustProxy`: false, a hop count, or the proxies' addresses and CIDR ranges. */
  trustProxy: false | number | string[];
  rateLimitPerMinute: number;
  authFailuresPerMinute: number;
  testSessionsPerMonth: number;
  webhookRetryDelaysSeconds: readonly number[];
  webhookTimeoutMs: number;
  connectorRetryDelaysSeconds: readonly number[];
  connectorTimeoutMs: number;
  selfServeWebhooks: boolean;
  allowPrivateNetwork: boolean;
  logLevel: string;
  validateResponses: boolean;
  metricsToken: string | undefined;
  webhookRetentionDays: number;
  documentRetentionDays: number | undefined;
  extractionProcesses: number;
  workerProcesses: number;
  extractionMemoryMb: number;
  simulatedSlowReadMs: number;
  /** Where document bytes live: the database, or an S3-compatible bucket (DOCUMENT_STORE). */
  documentStore: DocumentStoreConfig;
  /** Where Dossier's own mail goes (invitations); null: no mail, links are shown instead. */
  mail: { smtpUrl: string; from: string } | null;
}

export type DocumentStoreConfig =
  | { kind: 'database' }
  | {
      kind: 's3';
      bucket: string;
      /** Object keys start with this (no leading or trailing slash; may be empty). */
      prefix: string;
      endpoint: string | undefined;
      region: string;
      credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | undefined;
      /** Where new documents go: the bucket, or the database while moving back. */
      writes: 'object' | 'database';
    };

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads configuration from the environment; an invalid value stops start-up with every problem listed. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  const baseUrl = e.BASE_URL ?? `http://localhost:${e.PORT}`;
  return {
    port: e.PORT,
    host: e.HOST,
    baseUrl,
    appUrl: e.APP_URL === 'none' ? null : (e.APP_URL ?? `${baseUrl}/app`),
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    redisUrl: e.REDIS_URL,
    secret: e.DOSSIER_SECRET,
    acceptedKeyEnvironments: e.ACCEPTED_KEY_ENVIRONMENTS,
    trustProxy: e.TRUST_PROXY,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    authFailuresPerMinute: e.AUTH_FAILURES_PER_MINUTE,
    testSessionsPerMonth: e.TEST_SESSIONS_PER_MONTH,
    webhookRetryDelaysSeconds: e.WEBHOOK_RETRY_DELAYS,
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    connectorRetryDelaysSeconds: e.CONNECTOR_RETRY_DELAYS,
    connectorTimeoutMs: e.CONNECTOR_TIMEOUT_MS,
    selfServeWebhooks: e.SELF_SERVE_WEBHOOKS,
    allowPrivateNetwork: e.DOSSIER_ALLOW_PRIVATE_NETWORK,
    logLevel: e.LOG_LEVEL,
    validateResponses: e.VALIDATE_RESPONSES,
    metricsToken: e.METRICS_TOKEN,
    webhookRetentionDays: e.WEBHOOK_RETENTION_DAYS,
    documentRetentionDays: e.DOCUMENT_RETENTION_DAYS,
    extractionProcesses: e.EXTRACTION_PROCESSES,
    workerProcesses: e.WORKER_PROCESSES,
    extractionMemoryMb: e.EXTRACTION_MEMORY_MB,
    simulatedSlowReadMs: e.SIMULATED_SLOW_READ_MS,
    documentStore: documentStoreOf(e),
    mail: e.SMTP_URL ? { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM ?? `Dossier <no-reply@${new URL(baseUrl).hostname}>` } : null,
  };
}

function documentStoreOf(e: z.infer<typeof envSchema>): DocumentStoreConfig {
  if (!e.DOCUMENT_STORE || e.DOCUMENT_STORE === 'database') return { kind: 'database' };
  const url = new URL(e.DOCUMENT_STORE);
  const credentials =
    e.AWS_ACCESS_KEY_ID && e.AWS_SECRET_ACCESS_KEY
      ? { accessKeyId: e.AWS_ACCESS_KEY_ID, secretAccessKey: e.AWS_SECRET_ACCESS_KEY, ...(e.AWS_SESSION_TOKEN ? { sessionToken: e.AWS_SESSION_TOKEN } : {}) }
      : undefined;
  return {
    kind: 's3',
    bucket: url.hostname,
    prefix: decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, ''),
    endpoint: e.S3_ENDPOINT,
    region: e.S3_REGION,
    credentials,
    writes: e.DOCUMENT_STORE_WRITES,
  };
}
