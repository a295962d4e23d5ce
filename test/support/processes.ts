import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = fileURLToPath(new URL('../../bin/dossier.js', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as one JSON object; throws if it is anything else. */
  json(): Record<string, unknown>;
}

function baseEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  // Drop our own settings and Vite's (vitest sets BASE_URL=/ in the test process).
  const { DATABASE_URL: _d, REDIS_URL: _r, DATA_DIR: _dd, PORT: _p, BASE_URL: _b, APP_URL: _a, MODE: _m, DEV: _dv, PROD: _pr, SSR: _s, ...rest } = process.env;
  return { ...rest, LOG_LEVEL: 'warn', VALIDATE_RESPONSES: 'true', ...env };
}

/** Runs `dossier <args>` as a separate process, the way a person would. */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: baseEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(cliRun(code, stdout, stderr));
    });
  });
}

/**
 * Runs `dossier <args>` in this process, through the same runCommandLine that `dossier` runs
 * (src/cli/command-line.ts), with the environment a spawned CLI would get and its output captured.
 * A spawned CLI costs ~1.5 s of CPU (start Node, load the app, open PGlite); this ~0.3 s, the
 * modules being loaded once per test worker. What only a process can show stays with
 * {@link runCli}: an exit code from a real exit, a lock held by another process. A bug (an error
 * no command reports) rejects with its stack instead of printing it. `serve` and `worker` are
 * refused: start them with {@link startProcess}.
 */
export async function runCliInProcess(args: string[], env: Record<string, string>): Promise<CliRun> {
  const { runCommandLine } = await import('../../src/cli/command-line.ts');
  let stdout = '';
  let stderr = '';
  const code = await runCommandLine(args, {
    env: baseEnv(env),
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return cliRun(code, stdout, stderr);
}

function cliRun(code: number | null, stdout: string, stderr: string): CliRun {
  return {
    code,
    stdout,
    stderr,
    json() {
      const lines = stdout.trim().split('\n');
      if (lines.length !== 1) throw new Error(`expected one line of JSON, got:\n${stdout}\nstderr:\n${stderr}`);
      const parsed = JSON.parse(lines[0]!) as unknown;
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`not a JSON object: ${stdout}`);
      return parsed as Record<string, unknown>;
    },
  };
}

export interface RunningServer {
  url: string;
  pid: number;
  banner: Record<string, unknown>;
  child: ChildProcess;
  output(): { stdout: string; stderr: string };
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `dossier serve --json` (or another long-running command) and waits for its JSON banner. */
export function startProcess(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args, '--json'], { cwd: ROOT, env: baseEnv({ PORT: '0', ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let settled = false;
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      child.kill('SIGKILL');
      reject(new Error(`no banner within ${timeoutMs} ms\nstdout:${stdout}\nstderr:${stderr}`));
    }, timeoutMs);
    child.stderr.on('data', (c) => (stderr += c));
    child.stdout.on('data', (c) => {
      stdout += c;
      const line = stdout.split('\n')[0];
      if (settled || !stdout.includes('\n') || !line) return;
      settled = true;
      clearTimeout(timer);
      const banner = JSON.parse(line) as Record<string, unknown>;
      resolve({
        url: String(banner.url ?? ''),
        pid: child.pid!,
        banner,
        child,
        output: () => ({ stdout, stderr }),
        async stop(signal = 'SIGTERM') {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
      });
    });
    exited.then((code) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before its banner\nstdout:${stdout}\nstderr:${stderr}`));
    });
  });
}

/** A DATABASE_URL that pins the search_path to one schema, so spawned processes share a test's isolated schema. */
export function postgresUrlForSchema(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}
