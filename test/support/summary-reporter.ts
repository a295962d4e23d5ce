import type { Reporter, TestModule } from 'vitest/node';

/**
 * CI reads a plain closing line: "N passed, N failed, N skipped". Tests skipped with a reason
 * (`ctx.skip(reason)`, e.g. no shared spec beside a fresh clone) are listed just above it, one line
 * per reason with how many tests it skipped, so a newcomer sees why something did not run.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const reasons = new Map<string, { count: number; files: Set<string> }>();
    for (const module of testModules) {
      let moduleFailures = 0;
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state === 'passed') passed++;
        else if (result.state === 'failed') moduleFailures++;
        else {
          skipped++;
          if (result.state === 'skipped' && result.note) {
            const entry = reasons.get(result.note) ?? { count: 0, files: new Set<string>() };
            entry.count++;
            entry.files.add(module.relativeModuleId);
            reasons.set(result.note, entry);
          }
        }
      }
      // A file can fail with no failed test (an import error, a failing beforeAll that skips its
      // tests): it still counts, or the closing line would say 0 failed for a broken file.
      failed += module.state() === 'failed' ? Math.max(1, moduleFailures) : moduleFailures;
    }
    failed += unhandledErrors.length;
    // Where the run's time goes (issue 24 §7): the ten files that took longest, tests and hooks.
    const slowest = testModules
      .map((m) => ({ file: m.relativeModuleId, ms: m.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 10);
    let out = '\n';
    if (testModules.length > 10) out += `slowest files: ${slowest.map((f) => `${f.file} ${(f.ms / 1000).toFixed(0)} s`).join(', ')}\n`;
    for (const [reason, { count, files }] of reasons) out += `skipped ${count} (${[...files].join(', ')}): ${reason}\n`;
    process.stdout.write(`${out}${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
