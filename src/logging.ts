import { pino, type Logger } from 'pino';

const CENSOR = '[redacted]';

/**
 * Field names whose values never reach the log, at any depth (issue 9 §4): credentials, sealed
 * boxes, and the signed links that work as credentials until they expire.
 */
const SECRET_FIELDS = new Set([
  'authorization',
  'cookie',
  'set-cookie',
  'key',
  'api_key',
  'secret',
  'secrets',
  'signing_secret',
  'token',
  'tokens',
  'password',
  'signed_url',
  'case_file_url',
  'document_url',
  'applicant_link',
  'secret_box',
  'previous_secret_box',
  'sealed',
  'sealed_key',
]);

/**
 * Fields of the database drivers' errors that quote the row being written (issue 23 §5: a NUL in
 * an applicant's answer logged `err.where` with the answers' JSON). pg and PGlite put the server's
 * `detail`, `where`, `hint` and `internalQuery` on the error; PGlite adds the statement's `params`.
 * The message, SQLSTATE `code`, `routine` and the statement text stay: they say what failed
 * without saying whose data it was.
 */
const DRIVER_DETAIL_FIELDS = new Set(['detail', 'where', 'hint', 'internalquery', 'params', 'parameters', 'queryoptions']);

export function isSecretField(name: string): boolean {
  const lower = name.toLowerCase();
  return SECRET_FIELDS.has(lower) || DRIVER_DETAIL_FIELDS.has(lower) || lower.endsWith('_token') || lower.endsWith('_secret') || lower.endsWith('_password');
}

/** Credentials that can sit inside ordinary text (an error message quoting a URL or a header). */
const SECRET_IN_TEXT: [RegExp, string][] = [
  [/\b(sk_(?:test|live)_)[0-9A-Za-z]{8,}/g, `$1${CENSOR}`],
  [/\b(whsec_)[A-Za-z0-9+/=]{8,}/g, `$1${CENSOR}`],
  [/([?&](?:token|signature|sig|x-amz-signature|x-goog-signature)=)[^&#\s"']+/gi, `$1${CENSOR}`],
  [/(\bbearer\s+)[^\s"',]+/gi, `$1${CENSOR}`],
];

function redactText(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SECRET_IN_TEXT) out = out.replace(pattern, replacement);
  return out;
}

/** Deepest level walked; below it values are replaced whole (log objects are shallow; this bounds a cycle or a huge object). */
const MAX_DEPTH = 12;

/** A copy of `value` with secret fields censored at any depth and credentials cut out of text. */
export function redactDeep(value: unknown, depth = 0, seen: WeakSet<object> = new WeakSet()): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH || seen.has(value)) return '[truncated]';
  seen.add(value);
  // The log formatter runs before pino's serializers, so an error is still an Error here: its
  // message and stack are not enumerable and used to be dropped (issue 23 §5 found 500s logged
  // with neither). Serialize it the way pino would, then redact the copy.
  if (value instanceof Error) return redactDeep(pino.stdSerializers.err(value), depth + 1, seen);
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, depth + 1, seen));
  if (value instanceof Date || Buffer.isBuffer(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    out[name] = isSecretField(name) && item !== null && item !== undefined ? CENSOR : redactDeep(item, depth + 1, seen);
  }
  return out;
}

export function createLogger(level: string, destination?: { write(line: string): unknown }): Logger {
  return pino(
    {
      level,
      // Runs on every line's merged object *before* pino's serializers, so it serializes errors
      // itself (at any depth) and the `err` serializer lets its result through unchanged.
      formatters: { log: (object) => redactDeep(object) as Record<string, unknown> },
      serializers: { err: (value: unknown) => value },
      hooks: {
        logMethod(args, method) {
          // The message string too: an error text may quote a URL with its token.
          const redacted = args.map((a) => (typeof a === 'string' ? redactText(a) : a)) as typeof args;
          return method.apply(this, redacted);
        },
      },
      base: { service: 'dossier' },
    },
    destination ?? pino.destination({ dest: 2, sync: false }),
  );
}

/** How a request appears in the log: without its query string, which may carry a signed-link token. */
export function serializeRequest(req: { id: string; method: string; url: string; ip?: string }) {
  const q = req.url.indexOf('?');
  return { id: req.id, method: req.method, path: q === -1 ? req.url : req.url.slice(0, q), ip: req.ip };
}
