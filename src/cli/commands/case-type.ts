import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ENVIRONMENTS } from '../../config.ts';
import { getCaseType, listCaseTypes, putCaseType } from '../../domain/case-types/case-types.ts';
import { getOrg } from '../../domain/orgs/orgs.ts';
import { cliError } from '../output.ts';
import { envFlag, orgAndEnv, orgFlag, reported, UsageError, type AdminCommand } from './command.ts';

const putFlags = z.object({
  org: orgFlag,
  // No --env: the case type goes to both environments.
  env: envFlag.optional(),
  file: z.string({ error: '--file is required' }).min(1, '--file is required'),
});
const listFlags = z.object(orgAndEnv);

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

export const CASE_TYPE_COMMANDS: readonly AdminCommand[] = [
  {
    path: ['case-type', 'put'],
    usage: 'dossier case-type put --org ORG_ID [--env test|live] --file FILE.json   (no --env: both environments)',
    options: { org: { type: 'string' }, env: { type: 'string' }, file: { type: 'string' } },
    flags: putFlags,
    async run(ctx, values) {
      const flags = putFlags.parse(values);
      const environments = flags.env === undefined ? [...ENVIRONMENTS] : [flags.env];
      const definition = await readJsonFile(flags.file);
      if (!(await getOrg(ctx, { orgId: flags.org })).ok) return cliError('not_found', `No organization ${flags.org}.`);
      const results = [];
      for (const environment of environments) {
        const put = await putCaseType(ctx, { orgId: flags.org, environment, definition });
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
    flags: listFlags,
    async run(ctx, values) {
      const flags = listFlags.parse(values);
      const types = await listCaseTypes(ctx, { orgId: flags.org, environment: flags.env });
      return { case_types: types.map(({ definition: _d, ...rest }) => rest) };
    },
  },
  {
    path: ['case-type', 'show'],
    usage: 'dossier case-type show CASE_TYPE_ID --org ORG_ID --env test|live',
    options: { org: { type: 'string' }, env: { type: 'string' } },
    flags: listFlags,
    positionals: 1,
    async run(ctx, values, [caseTypeId]) {
      const flags = listFlags.parse(values);
      return reported(await getCaseType(ctx, { orgId: flags.org, environment: flags.env, caseTypeId: caseTypeId! }));
    },
  },
];
