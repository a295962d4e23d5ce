/**
 * Where a command writes: the process's stdout and stderr when run as `dossier`, or a test's
 * buffers when run in the test process (test/support/processes.ts `runCliInProcess`). `isTTY`
 * is set on a terminal only: a progress bar is drawn there and nowhere else.
 */
export interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** Every command prints exactly one JSON object with --json, or readable lines without it. */
export function printResult(result: object, json: boolean, out: Output): void {
  if (json) {
    out.write(`${JSON.stringify(result)}\n`);
    return;
  }
  out.write(`${formatHuman(result)}\n`);
}

/** A command's result: on stdout when it succeeded or with --json, else readably on stderr. */
export function report(exitCode: number, result: object, json: boolean, io: { stdout: Output; stderr: Output }): number {
  printResult(result, json, exitCode === 0 || json ? io.stdout : io.stderr);
  return exitCode;
}

function formatHuman(value: object, indent = ''): string {
  return Object.entries(value)
    .map(([k, v]) => {
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) return `${indent}${k}:\n${formatHuman(v, `${indent}  `)}`;
      return `${indent}${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`;
    })
    .join('\n');
}

export interface CliError {
  error: { code: string; message: string };
}

export function cliError(code: string, message: string): CliError {
  return { error: { code, message } };
}

/**
 * What a command line reads and writes: the environment its configuration comes from (the only
 * input besides argv) and the two streams it prints to. `dossier` passes the process's own
 * (src/cli/main.ts); the tests pass a DATA_DIR of their own and buffers, and run admin commands
 * in their own process instead of starting Node and loading the app for each.
 */
export interface CommandLineIo {
  env: Record<string, string | undefined>;
  stdout: Output;
  stderr: Output;
}
