import { z } from 'zod';
import { createOperator, OPERATOR_ROLES } from '../../domain/operators/operators.ts';
import { cliError } from '../output.ts';
import { orgFlag, type AdminCommand } from './command.ts';

const createFlags = z.object({
  org: orgFlag,
  email: z.string({ error: '--email is required' }).min(1, '--email is required'),
  password: z.string({ error: '--password is required' }).min(1, '--password is required'),
  role: z.enum(OPERATOR_ROLES, { error: '--role must be admin or reviewer' }).default('reviewer'),
});

/** `dossier operator create` (contract §3): a person who signs in to the dashboard. */
export const OPERATOR_COMMANDS: readonly AdminCommand[] = [
  {
    path: ['operator', 'create'],
    usage: 'dossier operator create --org ORG_ID --email E --password P [--role admin|reviewer]',
    options: { org: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' }, role: { type: 'string' } },
    flags: createFlags,
    async run(ctx, values) {
      const flags = createFlags.parse(values);
      const created = await createOperator(ctx, { orgId: flags.org, email: flags.email, password: flags.password, role: flags.role });
      if (!created.ok) return cliError(created.code, created.message);
      return { ...created.value, dashboard_url: `${ctx.config.baseUrl}/dashboard/login` };
    },
  },
];
