import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PAY_STUB_FACTS, UTILITY_BILL_FACTS } from '../../scripts/corpus/case-types.ts';

// The repo's own examples/, so the test runs (and can fail) wherever the repo is checked out.
const examples = join(import.meta.dirname, '../../examples/case-types');

describe('the corpus uses the shipped case types', () => {
  it('matches examples/case-types fact for fact', () => {
    const read = (name: string) => JSON.parse(readFileSync(join(examples, name), 'utf8')).facts;
    expect(PAY_STUB_FACTS).toEqual(read('income_verification.json'));
    expect(UTILITY_BILL_FACTS).toEqual(read('address_proof.json'));
  });
});
