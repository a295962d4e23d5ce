import { describe, expect, it } from 'vitest';
import { randomBase62, randomIds } from '../../src/ports/ids.ts';

describe('random ids (drawn from a pooled block of CSPRNG bytes)', () => {
  it('never hands out the same bytes twice, across many refills of the pool', () => {
    // 2 000 ids of 24 characters use about 50 000 bytes: a dozen 4 KB refills.
    const ids = Array.from({ length: 2_000 }, () => randomIds.next('case'));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^case_[0-9A-Za-z]{24}$/);
  });

  it('uses the whole alphabet about evenly (rejection sampling keeps it uniform)', () => {
    const counts = new Map<string, number>();
    for (const c of randomBase62(62_000)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 1 000 expected per character; ±25% is far outside chance (σ ≈ 31).
    for (const n of counts.values()) expect(Math.abs(n - 1_000)).toBeLessThan(250);
  });
});
