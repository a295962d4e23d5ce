import { describe, expect, it } from 'vitest';
import { knownKeyHashes } from '../../src/domain/keys/known-keys.ts';
import { hashApiKey } from '../../src/domain/keys/api-key-token.ts';
import { ManualClock } from '../../src/ports/clock.ts';

// Issue 23 §2b: a locked address's unknown keys must cost (almost) nothing; its good keys are served.
describe('known-good key hashes', () => {
  const live = hashApiKey(`sk_test_${'L'.repeat(43)}`);
  const unknown = (i: number) => hashApiKey(`sk_test_${String(i).padStart(43, 'U')}`);

  function fixture() {
    const clock = new ManualClock('2026-03-10T10:00:00.000Z');
    const loads: { since: Date }[] = [];
    let rows = [live.slice(0, 16)];
    const known = knownKeyHashes(async (since) => {
      loads.push({ since });
      return rows;
    }, clock);
    return { clock, loads, known, setRows: (r: string[]) => (rows = r) };
  }

  it('loads at most once a second however many unknown keys arrive, at once or one by one', async () => {
    const { clock, loads, known } = fixture();
    const answers = await Promise.all(Array.from({ length: 1000 }, (_, i) => known.has(unknown(i))));
    expect(answers.every((a) => !a)).toBe(true);
    for (let i = 0; i < 1000; i++) {
      clock.advance(1);
      expect(await known.has(unknown(i))).toBe(false);
    }
    expect(loads.length).toBe(2);
    expect(await known.has(live)).toBe(true);
  });

  it('loads every live key first, then only recent ones, and all again after ten minutes', async () => {
    const { clock, loads, known, setRows } = fixture();
    await known.has(unknown(1));
    expect(loads[0]!.since.getTime()).toBe(0);
    const fresh = unknown(2);
    setRows([fresh.slice(0, 16)]);
    clock.advance(1_000);
    expect(await known.has(fresh)).toBe(true);
    expect(loads[1]!.since.getTime()).toBeGreaterThan(0);
    expect(await known.has(live)).toBe(true);
    // The full reload drops what is no longer live (revoked, expired).
    clock.advance(10 * 60_000);
    expect(await known.has(unknown(3))).toBe(false);
    expect(loads[2]!.since.getTime()).toBe(0);
    expect(await known.has(live)).toBe(false);
  });

  it('knows a key found by lookup at once', async () => {
    const { loads, known } = fixture();
    await known.has(unknown(1));
    const found = unknown(9);
    known.remember(found);
    expect(await known.has(found)).toBe(true);
    expect(loads.length).toBe(1);
  });
});
