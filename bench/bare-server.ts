import Fastify from 'fastify';

/**
 * The baseline: a bare Fastify route that answers a fixed JSON body from memory. The body arrives
 * on stdin (the real case record, once the bench has created it); until then it is `{}`.
 */
let body = process.env.BARE_BODY ?? '{}';
let incoming = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => (incoming += chunk));
process.stdin.on('end', () => {
  if (incoming) body = incoming;
});
const app = Fastify();
app.get('/api/v1/cases/:case_id', async (_request, reply) => reply.type('application/json').send(body));
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(`${JSON.stringify({ status: 'listening', url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` })}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
