import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { loadConfig } from '../../config.ts';
import { forwardDelivery, type ForwardResult } from '../forward-delivery.ts';
import { cliError, printResult, type Output } from '../output.ts';
import { readServerSentEvents } from '../sse.ts';
import type { CommandOutcome } from './command.ts';

export const LISTEN_USAGE =
  'dossier listen --forward-to http://localhost:4567/hook [--events v1.case.completed,…] [--api-key sk_test_… --base-url https://…] [--org ORG_ID] [--name NAME] [--json]';

const httpUrl = (flag: string, example: string) =>
  z
    .string({ error: `${flag} is required, like ${example}` })
    .refine((v) => {
      try {
        const u = new URL(v);
        return u.protocol === 'http:' || u.protocol === 'https:';
      } catch {
        return false;
      }
    }, `${flag} must be an http or https URL, like ${example}`);

const listenFlags = z.object({
  'forward-to': httpUrl('--forward-to', 'http://localhost:4567/hook'),
  events: z.string().optional(),
  'api-key': z
    .string()
    .refine((k) => !k.startsWith('sk_live_'), 'dossier listen works with test keys only: give an sk_test_ key (live deliveries go to your registered endpoints).')
    .optional(),
  'base-url': httpUrl('--base-url', 'https://dossier.example.com').optional(),
  org: z.string().min(1).optional(),
  name: z.string().optional(),
});
type ListenFlags = z.infer<typeof listenFlags>;

export interface ListenIo {
  json: boolean;
  /** Where the configuration is read from (BASE_URL, when no --base-url is given). */
  env: Record<string, string | undefined>;
  /** Runs an admin command against the local deployment (in-process, or through its admin socket). */
  adminCommand(words: string[]): Promise<CommandOutcome>;
  stdout: Output;
  stderr: Output;
  /** Stops it as Ctrl-C does (in-process callers; the CLI stops on SIGINT and SIGTERM). */
  signal?: AbortSignal;
}

interface ReadyEvent {
  workspace: string;
  environment: string;
  endpoint_id: string;
  signing_secret: string;
  forward_to: string;
  events: string[];
  timeout_ms: number;
}

interface DeliveryEvent {
  delivery_id: string;
  attempt_token: string;
  event_type: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

interface RecordedResult {
  status: 'delivered' | 'retry_scheduled' | 'failed';
  next_attempt_at: string | null;
}

/** The stream sends a heartbeat every 10 s: silence for this long means the connection is dead without having said so. */
const SILENCE_MS = 35_000;
const BACKOFF_MS = [500, 1_000, 2_000, 5_000, 10_000];

/** Exit 2: usage, found before anything is connected. */
function usage(message: string, io: ListenIo): number {
  printResult(cliError('invalid_request', `${message}\nusage: ${LISTEN_USAGE}`), io.json, io.json ? io.stdout : io.stderr);
  return 2;
}

/**
 * `dossier listen` (issue 25): the workspace's test deliveries, forwarded to a URL on this machine.
 * It reads the listen stream of a running server (the local one by default, with a key the local
 * deployment makes; or any, with --api-key and --base-url), makes the signed POST itself, reports
 * the local answer as the delivery's attempt, and reconnects with backoff when the connection
 * drops: deliveries wait on the server meanwhile and arrive after (at least once).
 */
export async function listen(args: string[], io: ListenIo): Promise<number> {
  const out = io.stdout;
  const err = io.stderr;
  let flags: ListenFlags;
  try {
    const { values, positionals } = parseArgs({
      args: args.filter((a) => a !== '--json'),
      options: {
        'forward-to': { type: 'string' },
        events: { type: 'string' },
        'api-key': { type: 'string' },
        'base-url': { type: 'string' },
        org: { type: 'string' },
        name: { type: 'string' },
      },
      allowPositionals: true,
      strict: true,
    });
    if (positionals.length > 0) return usage(`unexpected argument ${positionals[0]}`, io);
    const parsed = listenFlags.safeParse(values);
    if (!parsed.success) return usage(parsed.error.issues.map((i) => i.message).join('; '), io);
    flags = parsed.data;
  } catch (e) {
    return usage((e as Error).message, io);
  }

  const local = flags['api-key'] === undefined;
  const baseUrl = (flags['base-url'] ?? loadConfig(io.env).baseUrl).replace(/\/+$/, '');
  const forwardTo = flags['forward-to'];
  const say = (human: string, json: object) => (io.json ? out.write(`${JSON.stringify(json)}\n`) : out.write(`${human}\n`));
  const fatal = (code: string, message: string) => {
    printResult(cliError(code, message), io.json, io.json ? out : err);
    return 1;
  };

  let key = flags['api-key'];
  const localKey = async (): Promise<string | CommandOutcome> => {
    const outcome = await io.adminCommand(['key', 'listen', ...(flags.org ? ['--org', flags.org] : [])]);
    const result = outcome.result as { key?: string };
    return outcome.exitCode === 0 && result.key ? result.key : outcome;
  };
  if (local) {
    const made = await localKey();
    if (typeof made !== 'string') {
      printResult(made.result, io.json, io.json ? out : err);
      return made.exitCode || 1;
    }
    key = made;
  }

  const query = new URLSearchParams({ forward_to: forwardTo });
  if (flags.events) query.set('events', flags.events);
  if (flags.name) query.set('name', flags.name);
  const streamUrl = `${baseUrl}/api/v1/webhooks/listen?${query}`;

  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  if (io.signal?.aborted) stop.abort();
  io.signal?.addEventListener('abort', onSignal, { once: true });
  const inFlight = new Set<Promise<void>>();
  let shownSecret: string | undefined;
  let failures = 0;
  let renewedKey = false;
  /** The server's attempt deadline, which the local POST keeps too. */
  let timeoutMs = 10_000;

  const report = async (delivery: DeliveryEvent, result: ForwardResult): Promise<RecordedResult | string> => {
    try {
      const res = await fetch(`${baseUrl}/api/v1/webhooks/listen/results`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          delivery_id: delivery.delivery_id,
          attempt_token: delivery.attempt_token,
          status_code: result.statusCode,
          duration_ms: result.durationMs,
          error: result.error,
          response_excerpt: result.responseExcerpt,
        }),
      });
      const body = (await res.json().catch(() => ({}))) as RecordedResult & { error?: { message?: string } };
      return res.ok ? body : (body.error?.message ?? `the server answered ${res.status}`);
    } catch (e) {
      return `the server could not be reached (${(e as Error).message})`;
    }
  };

  const handle = async (delivery: DeliveryEvent, timeoutMs: number) => {
    const result = await forwardDelivery({ url: forwardTo, headers: delivery.headers, body: delivery.body, timeoutMs });
    const recorded = await report(delivery, result);
    const time = new Date().toISOString().replace('T', ' ').slice(0, 19);
    const answer = result.statusCode !== null && result.error === null ? `[${result.statusCode}]` : `[${result.statusCode ?? result.error}]${result.statusCode !== null ? ` ${result.error}` : ''}`;
    const after =
      typeof recorded === 'string'
        ? `  (not recorded: ${recorded}; it will be sent again)`
        : recorded.status === 'retry_scheduled'
          ? `  (retry at ${recorded.next_attempt_at?.replace('T', ' ').slice(0, 19)})`
          : recorded.status === 'failed'
            ? '  (delivery failed: no attempts left)'
            : '';
    say(`${time}  ${delivery.event_type}  ${delivery.delivery_id}  ${answer}  ${result.durationMs} ms${after}`, {
      type: 'delivery',
      time: new Date().toISOString(),
      event_type: delivery.event_type,
      delivery_id: delivery.delivery_id,
      url: forwardTo,
      status_code: result.statusCode,
      error: result.error,
      duration_ms: result.durationMs,
      recorded: typeof recorded !== 'string',
      delivery_status: typeof recorded === 'string' ? null : recorded.status,
      ...(typeof recorded === 'string' ? { not_recorded: recorded } : { next_attempt_at: recorded.next_attempt_at }),
    });
  };

  const reconnectAfter = async (why: string) => {
    const wait = BACKOFF_MS[Math.min(failures, BACKOFF_MS.length - 1)]!;
    failures++;
    say(`Connection lost (${why}); reconnecting in ${wait / 1000} s. Deliveries wait on the server meanwhile.`, { type: 'disconnected', reason: why, retry_in_ms: wait });
    await sleep(wait, undefined, { signal: stop.signal }).catch(() => {});
  };

  while (!stop.signal.aborted) {
    const connection = new AbortController();
    const abortConnection = () => connection.abort();
    stop.signal.addEventListener('abort', abortConnection, { once: true });
    let silence: NodeJS.Timeout | undefined;
    const heard = () => {
      clearTimeout(silence);
      silence = setTimeout(() => connection.abort(new Error('no heartbeat')), SILENCE_MS);
    };
    try {
      const res = await fetch(streamUrl, { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' }, signal: connection.signal });
      if (!res.ok || !res.body) {
        const envelope = (await res.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null;
        if (res.status === 401 && local && !renewedKey) {
          // The local key ran out (a day) or was revoked: ask the deployment for another, once.
          renewedKey = true;
          const made = await localKey();
          if (typeof made === 'string') {
            key = made;
            continue;
          }
        }
        if (res.status >= 500) {
          await reconnectAfter(`the server answered ${res.status}`);
          continue;
        }
        return fatal(envelope?.error?.code ?? 'invalid_request', envelope?.error?.message ?? `the server answered ${res.status}`);
      }
      heard();
      for await (const event of readServerSentEvents(res.body, heard)) {
        if (event.event === 'ready') {
          const ready = JSON.parse(event.data) as ReadyEvent;
          const events = ready.events.includes('*') ? 'all events' : ready.events.join(', ');
          if (shownSecret === undefined) {
            say(`Ready. Forwarding test deliveries of ${ready.workspace} to ${forwardTo}\nSigning secret: ${ready.signing_secret}\nEvents: ${events}. Press Ctrl-C to stop.`, { type: 'ready', ...ready, forward_to: forwardTo });
          } else {
            say(`Reconnected. Forwarding test deliveries of ${ready.workspace} to ${forwardTo}${ready.signing_secret === shownSecret ? '' : `\nSigning secret (rotated): ${ready.signing_secret}`}`, { type: 'reconnected', ...ready, forward_to: forwardTo });
          }
          shownSecret = ready.signing_secret;
          failures = 0;
          renewedKey = false;
          timeoutMs = ready.timeout_ms;
        } else if (event.event === 'delivery') {
          const delivery = JSON.parse(event.data) as DeliveryEvent;
          const running = handle(delivery, timeoutMs).catch((e: unknown) => void err.write(`could not forward ${delivery.delivery_id}: ${(e as Error).message}\n`));
          inFlight.add(running);
          void running.finally(() => inFlight.delete(running));
        }
      }
      if (!stop.signal.aborted) await reconnectAfter('the server closed the stream');
    } catch (e) {
      if (stop.signal.aborted) break;
      const reason = connection.signal.aborted ? 'no heartbeat' : ((e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message);
      await reconnectAfter(reason === 'ECONNREFUSED' ? `connection refused by ${baseUrl}` : reason);
    } finally {
      clearTimeout(silence);
      stop.signal.removeEventListener('abort', abortConnection);
    }
  }
  await Promise.all([...inFlight]);
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  return 0;
}
