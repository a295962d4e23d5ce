import { describe, expect, it } from 'vitest';
import { createLanes, eachAtOnce } from '../../src/domain/documents/ocr/lanes.ts';

/**
 * The OCR engine's lanes (issue 28 §5): jobs run two at a time, each on lanes no other running job
 * holds, in the order they asked; a job wanting both lanes is not overtaken for ever.
 */

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('OCR lanes', () => {
  it('never gives one lane to two running jobs, and runs as many jobs as there are lanes', async () => {
    const lanes = createLanes(2);
    const holding = new Set<number>();
    let most = 0;
    await Promise.all(Array.from({ length: 12 }, (_, k) => lanes.run(k % 3 === 0 ? 2 : 1, async (held) => {
      for (const lane of held) {
        expect(holding.has(lane)).toBe(false);
        holding.add(lane);
      }
      most = Math.max(most, holding.size);
      await tick();
      for (const lane of held) holding.delete(lane);
    })));
    expect(most).toBe(2);
    expect(holding.size).toBe(0);
  });

  it('lets a job that waits for both lanes go before later jobs that want one', async () => {
    const lanes = createLanes(2);
    const order: string[] = [];
    let release!: () => void;
    const first = lanes.run(1, () => new Promise<void>((resolve) => { release = resolve; }));
    const both = lanes.run(2, async (held) => { order.push(`both ${held.join(',')}`); });
    const later = lanes.run(1, async () => { order.push('later'); });
    await tick();
    // One lane is free, but the job for two asked first: the later one waits behind it.
    expect(order).toEqual([]);
    release();
    await Promise.all([first, both, later]);
    expect(order).toEqual(['both 0,1', 'later']);
  });

  it('frees the lanes of a job that fails, and says when it is idle', async () => {
    const lanes = createLanes(2);
    await expect(lanes.run(2, async () => { throw new Error('engine died'); })).rejects.toThrow('engine died');
    let ran = false;
    const job = lanes.run(2, async () => { await tick(); ran = true; });
    await lanes.idle();
    expect(ran).toBe(true);
    await job;
    await expect(lanes.run(3, async () => {})).rejects.toThrow(RangeError);
  });

  it('runs a list at most n at a time, in order, and after a failure starts no more and reports it once the started ones end', async () => {
    let running = 0;
    let most = 0;
    const started: number[] = [];
    await eachAtOnce([1, 2, 3, 4, 5, 6, 7], 2, async (item) => {
      started.push(item);
      running++;
      most = Math.max(most, running);
      await tick();
      running--;
    });
    expect(most).toBe(2);
    expect(started).toEqual([1, 2, 3, 4, 5, 6, 7]);
    let finished = 0;
    await expect(eachAtOnce([1, 2, 3], 2, async (item) => {
      if (item === 1) throw new Error('first');
      await tick();
      finished++;
    })).rejects.toThrow('first');
    // Item 2 had started and ends; item 3 is never started.
    expect(finished).toBe(1);
    await eachAtOnce([], 2, async () => { throw new Error('never called'); });
  });
});
