import type { Logger } from 'pino';
import pg from 'pg';

export interface NotifyListener {
  close(): Promise<void>;
}

/**
 * A dedicated connection that LISTENs on one channel (a pooled connection cannot: it is handed to
 * other queries between notifications). If the connection drops it is made again with backoff,
 * and `onNotify` fires once on reconnecting, since notifications sent meanwhile were lost.
 */
export function listenForNotifications(url: string, channel: string, onNotify: () => void, logger: Logger): NotifyListener {
  let client: pg.Client | undefined;
  let closed = false;
  let retryMs = 500;
  let timer: NodeJS.Timeout | undefined;

  const connect = async () => {
    if (closed) return;
    const c = new pg.Client({ connectionString: url });
    client = c;
    c.on('notification', (msg) => {
      if (msg.channel === channel) onNotify();
    });
    c.on('error', (err) => logger.warn({ err, channel }, 'LISTEN connection failed'));
    c.on('end', () => {
      if (closed || client !== c) return;
      client = undefined;
      timer = setTimeout(() => void connect(), retryMs);
      retryMs = Math.min(retryMs * 2, 30_000);
    });
    try {
      await c.connect();
      await c.query(`listen ${channel}`);
      retryMs = 500;
      onNotify();
    } catch (err) {
      logger.warn({ err, channel }, 'LISTEN connection could not be opened; polling meanwhile');
      await c.end().catch(() => {});
    }
  };
  void connect();

  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      await client?.end().catch(() => {});
    },
  };
}
