import { pino, type Logger } from 'pino';

/**
 * Paths never written to the log. Keys, secrets and tokens travel in headers, bodies and query
 * strings; requests are logged through `serializeRequest`, which drops the query string.
 */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  '*.key',
  '*.signing_secret',
  '*.secret',
  '*.token',
  '*.password',
  'headers.authorization',
];

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    { level, redact: { paths: REDACT, censor: '[redacted]' }, base: { service: 'dossier' } },
    destination ?? pino.destination({ dest: 2, sync: false }),
  );
}

/** How a request appears in the log: without its query string, which may carry a signed-link token. */
export function serializeRequest(req: { id: string; method: string; url: string; ip?: string }) {
  const q = req.url.indexOf('?');
  return { id: req.id, method: req.method, path: q === -1 ? req.url : req.url.slice(0, q), ip: req.ip };
}
