import { z } from 'zod';
import { createApiKey, locateApiKeyUnscoped, revokeApiKey } from '../../domain/keys/keys.ts';
import { createListenerKey } from '../../domain/webhooks/listeners.ts';
import { isGrantedScope } from '../../domain/keys/scopes.ts';
import { countFlag, envFlag, orgFlag, reported, type AdminCommand } from './command.ts';

const durationPattern = /^(\d+)([smhd])$/;
const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** `30d`, `12h`, `90m`, `45s` → seconds. */
const durationFlag = z
  .string()
  .regex(durationPattern, 'invalid duration: use a number followed by s, m, h or d (e.g. 30d)')
  .transform((text) => {
    const match = durationPattern.exec(text)!;
    return Number(match[1]) * UNIT_SECONDS[match[2] as keyof typeof UNIT_SECONDS];
  })
  .refine((seconds) => seconds > 0, 'a duration must be positive');

const createFlags = z.object({
  org: orgFlag,
  env: envFlag,
  scopes: z
    .string({ error: "--scopes is required (a,b or '*')" })
    .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean))
    .refine((scopes) => scopes.length > 0, "--scopes is required (a,b or '*')")
    .refine((scopes) => scopes.every(isGrantedScope), { error: (issue) => `unknown scope ${(issue.input as string[]).filter((s) => !isGrantedScope(s)).join(', ')}` }),
  name: z.string().optional(),
  'expires-in': durationFlag.optional(),
  'rate-limit': countFlag('--rate-limit').optional(),
});

export const KEY_COMMANDS: readonly AdminCommand[] = [
  {
    path: ['key', 'create'],
    usage: "dossier key create --org ORG_ID --env test|live --scopes a,b|'*' [--name N] [--expires-in 30d] [--rate-limit N]",
    flags: createFlags,
    options: {
      org: { type: 'string' },
      env: { type: 'string' },
      scopes: { type: 'string' },
      name: { type: 'string' },
      'expires-in': { type: 'string' },
      'rate-limit': { type: 'string' },
    },
    async run(ctx, values) {
      const flags = createFlags.parse(values);
      return reported(
        await createApiKey(ctx, {
          orgId: flags.org,
          environment: flags.env,
          scopes: flags.scopes,
          ...(flags.name !== undefined ? { name: flags.name } : {}),
          ...(flags['expires-in'] !== undefined ? { expiresInSeconds: flags['expires-in'] } : {}),
          ...(flags['rate-limit'] !== undefined ? { rateLimitPerMinute: flags['rate-limit'] } : {}),
        }),
      );
    },
  },
  {
    // What `dossier listen` asks the local deployment for when it is given no --api-key.
    path: ['key', 'listen'],
    usage: 'dossier key listen [--org ORG_ID]   (a test key with the webhooks:listen scope, valid 24 hours)',
    options: { org: { type: 'string' } },
    async run(ctx, values) {
      const flags = z.object({ org: orgFlag.optional() }).parse(values);
      return reported(await createListenerKey(ctx, flags.org !== undefined ? { orgId: flags.org } : {}));
    },
  },
  {
    path: ['key', 'revoke'],
    usage: 'dossier key revoke KEY_ID',
    options: {},
    positionals: 1,
    async run(ctx, _values, [keyId]) {
      // The operator names a key by id alone: find its organisation, then revoke as its owner would.
      const located = await locateApiKeyUnscoped(ctx, { keyId: keyId! });
      const revoked = located.ok ? await revokeApiKey(ctx, { orgId: located.value.orgId, keyId: keyId! }) : located;
      if (revoked.ok) ctx.keys.forget(keyId!);
      return reported(revoked);
    },
  },
];
