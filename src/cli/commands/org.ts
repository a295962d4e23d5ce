import { z } from 'zod';
import { createOrg, updateOrg } from '../../domain/orgs/orgs.ts';
import { countFlag, reported, type AdminCommand } from './command.ts';

const billingFlag = z.enum(['active', 'inactive'], { error: '--billing must be active or inactive' }).optional();

const createFlags = z.object({
  name: z.string({ error: '--name is required' }).trim().min(1, '--name is required'),
  billing: billingFlag,
  'accept-legal': z.boolean().optional(),
});

const updateFlags = z.object({
  billing: billingFlag,
  'accept-legal': z.boolean().optional(),
  // A number, or `none` for no cap.
  'live-usage-cap': z.union([z.literal('none').transform(() => null), countFlag('--live-usage-cap')]).optional(),
});

export const ORG_COMMANDS: readonly AdminCommand[] = [
  {
    path: ['org', 'create'],
    usage: 'dossier org create --name NAME [--billing active|inactive] [--accept-legal]',
    options: { name: { type: 'string' }, billing: { type: 'string' }, 'accept-legal': { type: 'boolean' } },
    flags: createFlags,
    async run(ctx, values) {
      const flags = createFlags.parse(values);
      return createOrg(ctx, { name: flags.name, ...(flags.billing ? { billing: flags.billing } : {}), acceptLegal: flags['accept-legal'] === true });
    },
  },
  {
    path: ['org', 'update'],
    usage: 'dossier org update ORG_ID [--billing active|inactive] [--accept-legal] [--live-usage-cap N|none]',
    options: { billing: { type: 'string' }, 'accept-legal': { type: 'boolean' }, 'live-usage-cap': { type: 'string' } },
    flags: updateFlags,
    positionals: 1,
    async run(ctx, values, [orgId]) {
      const flags = updateFlags.parse(values);
      const liveUsageCap = flags['live-usage-cap'];
      return reported(
        await updateOrg(ctx, {
          orgId: orgId!,
          ...(flags.billing ? { billing: flags.billing } : {}),
          acceptLegal: flags['accept-legal'] === true,
          ...(liveUsageCap !== undefined ? { liveUsageCap } : {}),
        }),
      );
    },
  },
];
