import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The message as sent, headers and body. */
  raw: string;
  /** The body's text, with quoted-printable soft breaks and escapes undone. */
  text: string;
}

export interface TestSmtpServer {
  url: string;
  messages: ReceivedMail[];
  /** Resolves with the next message (or the first already received that the test has not taken). */
  next(timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/**
 * A real SMTP server on loopback (the `smtp-server` package): Dossier's mailer speaks the protocol
 * to it as to any mail relay. No TLS and no auth, as a local relay would be; `refuse` makes it
 * answer every message with a 550, as a server that will not relay does.
 */
export async function startSmtpServer(options: { refuse?: boolean } = {}): Promise<TestSmtpServer> {
  const messages: ReceivedMail[] = [];
  let taken = 0;
  const waiters: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (options.refuse) return callback(Object.assign(new Error('Relay access denied'), { responseCode: 550 }));
        const raw = Buffer.concat(chunks).toString('utf8');
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          text: decodeBody(raw),
        });
        for (const wake of waiters.splice(0)) wake();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async next(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length <= taken) {
        if (Date.now() > deadline) throw new Error('no mail arrived');
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return messages[taken++]!;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function decodeBody(raw: string): string {
  const split = raw.indexOf('\r\n\r\n');
  const headers = raw.slice(0, split);
  const body = raw.slice(split + 4);
  if (/content-transfer-encoding:\s*quoted-printable/i.test(headers)) {
    return Buffer.from(body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8');
  }
  if (/content-transfer-encoding:\s*base64/i.test(headers)) return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return body;
}
