import { afterAll, beforeAll } from 'vitest';
import { Worker } from '../../src/jobs/worker.ts';
import { jobTasks } from '../../src/jobs/tasks.ts';
import { createTestApp, type TestApp, type TestWorkspace } from './harness.ts';
import { launchBrowser, listen, type TestBrowser } from './browser.ts';
import { withExampleCaseTypes } from './fixtures.ts';

export interface ApplicantBrowserRig {
  t: TestApp;
  ws: TestWorkspace;
  browser: TestBrowser;
  origin: string;
}

/**
 * What an applicant browser test stands on: a served app with the example case types in a workspace
 * named "Acme Lending", the job worker reading documents, and Chromium. Registers its own
 * beforeAll/afterAll; the fields are filled once beforeAll has run.
 */
export function applicantBrowserRig(onClose: () => Promise<void> = async () => {}): ApplicantBrowserRig {
  const rig = {} as ApplicantBrowserRig;
  let worker: Worker | undefined;
  beforeAll(async () => {
    rig.t = await createTestApp('embedded');
    rig.ws = await rig.t.workspace({ name: 'Acme Lending' });
    await withExampleCaseTypes(rig.t, rig.ws.orgId);
    rig.origin = await listen(rig.t);
    rig.browser = await launchBrowser();
    worker = new Worker(rig.t.ctx, jobTasks());
    worker.start();
  });
  afterAll(async () => {
    await onClose();
    await worker?.stop();
    await rig.browser?.close();
    await rig.t?.close();
  });
  return rig;
}
