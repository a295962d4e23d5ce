import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Agent } from 'undici';
import { createSafeHttpClient } from '../src/net/safe-fetch.ts';
import { signAttempt, generateSigningSecret } from '../src/domain/webhooks/signature.ts';
const receiver = fork(fileURLToPath(new URL('./webhooks-receiver.ts', import.meta.url)), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
let waiter: any;
const port = await new Promise<number>((resolve) => receiver.on('message', (m: any) => { if (m.type === 'ready') resolve(m.port); if (m.type === 'count') waiter?.(m); }));
const stats = () => new Promise<any>((r) => { waiter = r; receiver.send({ type: 'count' }); });
const body = JSON.stringify({ id: 'evt_x', type: 'v1.intake.submitted', data: { runtime_status: 'processing', more: 'x'.repeat(300) }, delivery_id: 'dlv_x' });
const N = 20000, C = 32;
async function run(label: string, one: (i: number) => Promise<void>) {
  receiver.send({ type: 'reset' });
  let next = 0; const cpu = process.cpuUsage(); const t = performance.now();
  await Promise.all(Array.from({ length: C }, async () => { while (next < N) await one(next++); }));
  const s = (performance.now() - t) / 1000; const u = process.cpuUsage(cpu);
  const st = await stats();
  console.log(`${label.padEnd(30)} ${Math.round(N / s)}/s ${Math.round((u.user + u.system) / N)} µs CPU, conns ${st.connections}`);
}
const secret = generateSigningSecret();
for (let round = 0; round < 2; round++) {
  const agent = new Agent();
  await run('raw', async (i) => { const r = await agent.request({ origin: `http://127.0.0.1:${port}`, path: `/e${i % 10}`, method: 'POST', headers: { 'content-type': 'application/json' }, body }); await r.body.dump(); });
  await agent.close();
  const http = createSafeHttpClient({ policy: { allowPrivateNetwork: true }, timeoutMs: 10000 });
  await run('safe fetch', async (i) => { const r = await http.fetch({ url: `http://127.0.0.1:${port}/e${i % 10}`, method: 'POST', headers: { 'content-type': 'application/json' }, body }); if (!r.ok) throw new Error(r.message); });
  await run('safe fetch + sign', async (i) => { const r = await http.fetch({ url: `http://127.0.0.1:${port}/e${i % 10}`, method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'Dossier-Webhooks/1.0', ...signAttempt([secret], 'dlv_' + i, Math.floor(Date.now() / 1000), body) }, body }); if (!r.ok) throw new Error(r.message); });
  await http.close();
  const http2 = createSafeHttpClient({ policy: { allowPrivateNetwork: false }, timeoutMs: 10000, lookup: async () => [{ address: '8.8.8.8', family: 4 }] });
  const t = performance.now(); for (let i = 0; i < N; i++) signAttempt([secret], 'dlv_' + i, 1700000000, body); console.log('sign only', Math.round((performance.now() - t) * 1000 / N), 'µs');
  await http2.close();
}
receiver.send({ type: 'stop' });
