import { expectedFailure, runCommandLine } from './command-line.ts';
import type { CommandLineIo } from './output.ts';
import { cliError, report } from './output.ts';

/**
 * `dossier`: the process around runCommandLine (command-line.ts), which the tests also call in
 * their own process. Here only what belongs to a process: its argv, environment and streams, the
 * exit code, the long-running commands that stop on a signal, and a bug's stack trace.
 */
const io: CommandLineIo = { env: process.env, stdout: process.stdout, stderr: process.stderr };

async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const words = argv.filter((a) => a !== '--json');
  const [command] = words;
  // -1: serve and worker run until their signal handling exits the process.
  if (command === 'serve') {
    const unknown = words.slice(1).filter((w) => w !== '--no-worker');
    if (unknown.length > 0) return report(2, cliError('invalid_request', `unknown option ${unknown[0]}; usage: dossier serve [--no-worker]`), json, io);
    // serve and worker are imported when run: the HTTP server and web faces are half of an admin
    // command's start-up otherwise (6.5 s of 9 s under load), and tests run hundreds.
    const { serve } = await import('./commands/serve.ts');
    await serve({ json, worker: !words.includes('--no-worker') }, io);
    return -1;
  }
  if (command === 'worker') {
    const options = words.slice(1);
    const at = options.indexOf('--concurrency');
    const value = at === -1 ? undefined : options[at + 1];
    const concurrency = value === undefined ? undefined : Number(value);
    const unknown = options.filter((w, i) => !(at !== -1 && (i === at || i === at + 1)));
    if (unknown.length > 0 || (at !== -1 && !(Number.isInteger(concurrency) && concurrency! >= 1 && concurrency! <= 256))) {
      return report(2, cliError('invalid_request', unknown.length > 0 ? `unknown option ${unknown[0]}; usage: dossier worker [--concurrency N]` : '--concurrency takes a whole number of processes, 1 to 256'), json, io);
    }
    const { runWorker } = await import('./commands/worker.ts');
    await runWorker({ json, ...(concurrency !== undefined ? { concurrency } : {}) }, io);
    return -1;
  }
  return runCommandLine(argv, io);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    const json = process.argv.includes('--json');
    const expected = expectedFailure(err);
    if (expected === undefined) process.stderr.write(`${(err as Error).stack}\n`);
    report(1, expected ?? cliError('internal_error', `unexpected failure: ${(err as Error).message}`), json, io);
    process.exitCode = 1;
  },
);
