import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG, ERROR_TYPES, errorStatus } from '../../src/domain/errors.ts';
import { findSharedFolder } from '../support/shared-folder.ts';
import { SPEC_ERROR_CODES, SPEC_ERROR_TYPES } from './spec-error-tables.ts';

/** The rows of the markdown table under `heading`, cells trimmed and unquoted, header rows dropped. */
function specTable(spec: string, heading: string): string[][] {
  const section = spec.slice(spec.indexOf(heading));
  const lines = section.split('\n').slice(1);
  const rows: string[][] = [];
  let started = false;
  for (const line of lines) {
    if (line.startsWith('|')) {
      started = true;
      rows.push(line.split('|').slice(1, -1).map((c) => c.trim().replaceAll('`', '')));
    } else if (started) break;
  }
  return rows.slice(2);
}

/** The spec is binding to the letter: the catalog must be exactly its §7.1 and §7.2 tables. */
describe('error catalog', () => {
  it('has exactly the codes and statuses of spec §7.2', () => {
    expect(SPEC_ERROR_CODES.length).toBeGreaterThan(30);
    expect(Object.keys(ERROR_CATALOG).sort()).toEqual(SPEC_ERROR_CODES.map(([code]) => code).sort());
    for (const [code, status] of SPEC_ERROR_CODES) expect(errorStatus(code as keyof typeof ERROR_CATALOG), code).toBe(status);
  });

  it('has exactly the types and statuses of spec §7.1', () => {
    expect(Object.fromEntries(SPEC_ERROR_TYPES)).toEqual(ERROR_TYPES);
  });

  // Where the shared folder is (CI checks the repo out beside it), the record above is checked
  // against the spec itself; a lone clone has only the record, and says so once.
  const shared = findSharedFolder();
  if (shared.ok) {
    it('records the spec’s §7.1 and §7.2 tables as they are written (test/foundation/spec-error-tables.ts)', () => {
      const spec = readFileSync(join(shared.dir, 'spec/api-spec.md'), 'utf8');
      expect(SPEC_ERROR_CODES.map(([c, s]) => [c, String(s)])).toEqual(specTable(spec, '### 7.2 Codes').map((r) => [r[0], r[1]]));
      expect(SPEC_ERROR_TYPES.map(([t, s]) => [t, String(s)])).toEqual(specTable(spec, '### 7.1 Types').map((r) => [r[0], r[1]]));
    });
  } else {
    process.stderr.write(`note: ${shared.reason}; the error catalog is checked against the recorded spec tables only\n`);
  }
});
