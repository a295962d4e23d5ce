import { readFileSync } from 'node:fs';
import { describe, expect, it, type TestContext } from 'vitest';
import { ERROR_CATALOG, ERROR_TYPES, errorStatus } from '../../src/domain/errors.ts';
import { sharedFileOrSkip } from '../support/shared-folder.ts';

/** The spec is binding to the letter: the catalog must be exactly its §7.1 and §7.2 tables. */
function specTable(ctx: TestContext, heading: string): string[][] {
  const spec = readFileSync(sharedFileOrSkip(ctx, 'spec/api-spec.md'), 'utf8');
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

describe('error catalog', () => {
  it('has exactly the codes and statuses of spec §7.2', (ctx) => {
    const rows = specTable(ctx, '### 7.2 Codes');
    expect(rows.length).toBeGreaterThan(30);
    expect(Object.keys(ERROR_CATALOG).sort()).toEqual(rows.map((r) => r[0]).sort());
    for (const [code, status] of rows) {
      expect(errorStatus(code as keyof typeof ERROR_CATALOG), code).toBe(Number(status));
    }
  });

  it('has exactly the types and statuses of spec §7.1', (ctx) => {
    const rows = specTable(ctx, '### 7.1 Types');
    expect(Object.fromEntries(rows.map((r) => [r[0], Number(r[1])]))).toEqual(ERROR_TYPES);
  });
});
