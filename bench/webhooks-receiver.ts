import { createServer } from 'node:http';

/**
 * The benchmark's webhook receiver, in its own process so it does not share an event loop with
 * what is measured. Answers 200 at once; reports its count on request and, in latency mode, every
 * receipt as it happens (webhook-id and wall-clock time).
 */
let count = 0;
/** TCP connections accepted since the last reset: keep-alive reuse shows as few. */
let connections = 0;
let reportEach = false;

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    count++;
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    if (reportEach) process.send!({ type: 'receipt', id: req.headers['webhook-id'], at: Date.now() });
  });
});
server.keepAliveTimeout = 10_000;
server.on('connection', () => connections++);

process.on('message', (msg: { type: string }) => {
  if (msg.type === 'count') process.send!({ type: 'count', count, connections });
  if (msg.type === 'reset') count = connections = 0;
  if (msg.type === 'latency') reportEach = true;
  if (msg.type === 'stop') server.close(() => process.exit(0));
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send!({ type: 'ready', port: typeof address === 'object' && address ? address.port : 0 });
});
