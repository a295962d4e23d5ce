import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { until } from '../support/harness.ts';
import { describeInBrowser, launchBrowser, newContext, screenshot, type TestBrowser } from '../support/browser.ts';
import { startProcess, type RunningServer } from '../support/processes.ts';
import { freePort, startReceiverExample, type RunningReceiver } from '../support/receiver-example.ts';

/**
 * The README's quick start, as a newcomer does it (issue 25, "Done when"), with no setting
 * changed: `npm start` on a fresh data directory (its first start prints the test key and the
 * dashboard sign-in), `dossier listen --forward-to` a receiver on this machine (the reference
 * receiver of examples/receiver, configured with the secret `listen` prints), a session made with
 * the printed key, the applicant's link completed in a browser with a sample document, the case
 * approved in the dashboard, and the receiver verifying and acknowledging the handoff.
 */

const CLI = fileURLToPath(new URL('../../bin/dossier.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Listener {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** `npm run dossier -- listen --forward-to …`, in its own process, reading the local server's data directory for its key. */
async function startListen(env: Record<string, string>, forwardTo: string): Promise<Listener> {
  const { DATABASE_URL: _d, REDIS_URL: _r, BASE_URL: _b, ...rest } = process.env;
  const child = spawn(process.execPath, [CLI, 'listen', '--forward-to', forwardTo], { cwd: ROOT, env: { ...rest, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  await until(() => {
    if (child.exitCode !== null) throw new Error(`listen exited with ${child.exitCode}:\n${output}`);
    return /Signing secret: whsec_\S+/.test(output) && output.includes('Press Ctrl-C');
  }, 60_000);
  return {
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      await exited;
    },
  };
}

describeInBrowser('the README quick start, from a fresh data directory (issue 25)', () => {
  let dataDir: string;
  let server: RunningServer;
  let listener: Listener;
  let receiver: RunningReceiver;
  let browser: TestBrowser;
  let base: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'dossier-quick-start-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // `npm start` with the address people type; only the port is chosen so tests can run side by side.
    server = await startProcess(['serve'], { DATA_DIR: dataDir, PORT: String(port), BASE_URL: base }, 180_000);
    browser = await launchBrowser();
  }, 240_000);
  afterAll(async () => {
    await listener?.stop();
    await receiver?.stop();
    await browser?.close();
    await server?.stop('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('key, session, webhook through dossier listen to a local receiver, acknowledgement', async () => {
    const demo = server.banner.demo as { key: string; dashboard: { email: string; password: string } };
    expect(demo.key).toMatch(/^sk_test_/);

    // The receiver's port first, then `listen` to it: its printed secret configures the receiver.
    const receiverPort = await freePort();
    listener = await startListen({ DATA_DIR: dataDir, BASE_URL: base }, `http://localhost:${receiverPort}/webhooks/dossier`);
    const secret = /Signing secret: (whsec_\S+)/.exec(listener.output())![1]!;
    receiver = await startReceiverExample({
      DOSSIER_API_KEY: demo.key,
      DOSSIER_BASE_URL: base,
      DOSSIER_WEBHOOK_SECRET: secret,
      RECEIVER_DB: join(dataDir, 'receiver.sqlite'),
      RECEIVER_POLL_MS: '200',
      PORT: String(receiverPort),
      HOST: '127.0.0.1',
    });

    // A session with the printed key; a test key may send the applicant back to localhost over http.
    const created = await fetch(`${base}/api/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demo.key}`, 'content-type': 'application/json', 'idempotency-key': 'quick-start-1' },
      body: JSON.stringify({ case_type_id: 'income_verification', external_case_id: 'LOAN-QUICK-1', prefill: { full_name: 'Robert Miller' }, return_url: `http://localhost:${receiverPort}/done` }),
    });
    expect(created.status).toBe(201);
    const session = (await created.json()) as { case_id: string; signed_url: string };

    // The applicant, on a phone: the form step, a sample document with every fact, confirm, submit.
    const applicant = await newContext(browser, { viewport: 'phone' });
    const page = await applicant.newPage();
    await page.goto(session.signed_url);
    await page.getByRole('heading', { name: 'About you' }).waitFor();
    await page.getByLabel('Email address').fill('robert@example.com');
    await page.getByLabel('Day', { exact: true }).fill('7');
    await page.getByLabel('Month', { exact: true }).fill('3');
    await page.getByLabel('Year', { exact: true }).fill('1990');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Or use a sample document (test mode only)').selectOption('all_facts');
    await page.getByRole('button', { name: 'Use a sample document' }).click();
    await page.getByText(/has been uploaded\./).waitFor();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(/\/confirm\//);
    const read = page.getByRole('heading', { name: 'We read these from your pay stub' });
    await expect.poll(async () => {
      if (await read.count()) return true;
      await page.getByRole('button', { name: 'Check again' }).click();
      return (await read.count()) > 0;
    }, { timeout: 90_000, interval: 500 }).toBe(true);
    for (const yes of await page.getByRole('radio', { name: 'Yes' }).all()) await yes.check();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Check your answers before submitting' }).waitFor();
    await page.getByRole('button', { name: /^Submit/ }).click();
    await page.waitForURL(/\/status(\?sent=1)?$/);
    await screenshot(page, 'quick-start-applicant-sent-phone');
    await applicant.close();

    const caseRead = async () => (await (await fetch(`${base}/api/v1/cases/${session.case_id}`, { headers: { authorization: `Bearer ${demo.key}` } })).json()) as {
      runtime_status: string;
      handoff: { handoff_state: string; acknowledged_at: string | null } | null;
    };
    await until(async () => (await caseRead()).runtime_status === 'ready_for_review', 90_000, 500);

    // The operator, signed in with the printed credentials, approves from the case page.
    const operator = await newContext(browser, { viewport: 'desktop' });
    const console = await operator.newPage();
    await console.goto(`${base}/dashboard/login`);
    await console.getByLabel('Email').fill(demo.dashboard.email);
    await console.getByLabel('Password').fill(demo.dashboard.password);
    await console.getByRole('button', { name: 'Sign in' }).click();
    await console.getByRole('heading', { name: 'Overview' }).waitFor();
    await console.goto(`${base}/dashboard/cases/${session.case_id}`);
    await console.getByRole('button', { name: 'Approve', exact: true }).click();
    await console.getByText('Case approved').waitFor();
    await screenshot(console, 'quick-start-approved-desktop');
    await operator.close();

    // The receiver got the signed handoff through `listen`, verified it, read the case and acknowledged.
    const acknowledged = await until(async () => {
      const c = await caseRead();
      return c.handoff?.handoff_state === 'acknowledged' ? c : undefined;
    }, 60_000, 500);
    expect(acknowledged.handoff!.acknowledged_at).toEqual(expect.any(String));
    expect(listener.output()).toMatch(/v1\.case\.completed\s+dlv_\S+\s+\[200\]/);
    expect(receiver.output()).not.toMatch(/"statusCode":401/);
  }, 360_000);
});
