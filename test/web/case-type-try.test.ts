import { afterAll, beforeAll, expect, it } from 'vitest';
import { putCaseType } from '../../src/domain/case-types/case-types.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { csrfOf, newOperator, signInOperator } from '../support/web.ts';
import { petRenewalCaseType, petRenewalPdf } from '../api/case-type-try-fixtures.ts';

function multipart(fields: Record<string, string>, file?: { name: string; filename: string; contentType: string; bytes: Buffer }) {
  const boundary = '----dossier-try-boundary';
  const chunks: Buffer[] = Object.entries(fields).map(([k, v]) => Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  if (file) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.filename}"\r\nContent-Type: ${file.contentType}\r\n\r\n`), file.bytes, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

describeEachBackend('dashboard: Try a document', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let cookie: string;
  beforeAll(async () => {
    t = await createTestApp(backend);
    ws = await t.workspace();
    for (const environment of ['test', 'live'] as const) {
      const put = await putCaseType(t.ctx, { orgId: ws.orgId, environment, definition: petRenewalCaseType({ yearly_premium: ['Premium (yearly)'] }) });
      if (!put.ok) throw new Error(JSON.stringify(put.problems));
    }
    const op = await newOperator(t, ws.orgId, 'admin');
    cookie = (await signInOperator(t, op.email, op.password)).cookie;
  });
  afterAll(() => t.close());

  const pagePath = '/dashboard/developers/case-types/pet_renewal';
  const trySample = async (file?: { bytes: Buffer; filename: string; contentType: string }) => {
    const page = await t.app.inject({ method: 'GET', url: pagePath, headers: { cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Try a document');
    expect(page.body).toContain(`action="${pagePath}/try"`);
    const body = multipart({ _csrf: csrfOf(page.body), document_kind: 'renewal_notice' }, file ? { name: 'sample_file', ...file } : undefined);
    return t.app.inject({ method: 'POST', url: `${pagePath}/try`, headers: { cookie, 'content-type': body.contentType }, payload: body.payload });
  };

  it('uploads a sample through the form and shows what was found, on the page image, and what to add', async () => {
    const res = await trySample({ bytes: await petRenewalPdf(), filename: 'renewal.pdf', contentType: 'application/pdf' });
    expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
    expect(res.body).toContain('<h1>Try a document</h1>');
    expect(res.body).toContain('Facts found (1)');
    expect(res.body).toContain('258.00');
    expect(res.body).toContain('Premium (yearly)');
    expect(res.body).toMatch(/<image href="data:image\/(png|jpeg);base64,/);
    expect(res.body).toContain('data-evidence-box');
    expect(res.body).toContain('Facts not found (3)');
    expect(res.body).toContain("Add 'Policy holder' as an anchor");
    expect(res.body).toContain('Margaret Okonkwo');
    expect(Number((await t.ctx.db.selectFrom('documents').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)).toBe(0);
  });

  it('says why a sample cannot be tried, without a 500', async () => {
    const res = await trySample({ bytes: Buffer.from([0, 1, 2, 255, 0]), filename: 'x.bin', contentType: 'application/octet-stream' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('The sample could not be tried');
    const none = await trySample();
    expect(none.statusCode).toBe(400);
  });

  it('refuses a post without the form token', async () => {
    const body = multipart({ document_kind: 'renewal_notice' }, { name: 'sample_file', filename: 'r.pdf', contentType: 'application/pdf', bytes: await petRenewalPdf() });
    const res = await t.app.inject({ method: 'POST', url: `${pagePath}/try`, headers: { cookie, 'content-type': body.contentType }, payload: body.payload });
    expect(res.statusCode).toBe(403);
  });
});
