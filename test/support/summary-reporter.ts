import type { Reporter, TestModule } from 'vitest/node';

/** CI reads a plain closing line: "N passed, N failed, N skipped". */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      let moduleFailures = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') moduleFailures++;
        else skipped++;
      }
      // A file can fail with no failed test (an import error, a failing beforeAll that skips its
      // tests): it still counts, or the closing line would say 0 failed for a broken file.
      failed += module.state() === 'failed' ? Math.max(1, moduleFailures) : moduleFailures;
    }
    failed += unhandledErrors.length;
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
