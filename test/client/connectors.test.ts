import { ValidationError } from '@dossier/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dossierError, dossierFor } from '../support/dossier-client.ts';
import { createTestApp, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { fixtureJson } from '../connectors/document-server.ts';
import { loanManifest } from '../connectors/support.ts';

let t: TestApp;
let ws: TestWorkspace;
beforeAll(async () => {
  t = await createTestApp('embedded');
  ws = await t.workspace();
});
afterAll(() => t.close());

it('manages connectors: import a manifest, read it, PUT it back, import OpenAPI, list, delete', async () => {
  const dossier = dossierFor(t, ws);
  const created = await dossier.connectors.create(loanManifest() as Parameters<typeof dossier.connectors.create>[0]);
  expect(created.lastResponse.status).toBe(201);
  expect(created.auth).toEqual({ type: 'bearer', secret_set: true });

  const read = await dossier.connectors.retrieve('loan_origination');
  const put = await dossier.connectors.put('loan_origination', read);
  expect(put.lastResponse.status).toBe(200);
  expect(put.version).toBe(2);

  const imported = await dossier.connectors.importOpenApi({ connector_key: 'petstore', openapi: fixtureJson('petstore-3.0.json') });
  expect(imported.lastResponse.status).toBe(201);
  expect(imported.operations.map((o) => o.operation_id)).toContain('showPetById');

  expect((await dossier.connectors.list()).connectors.map((c) => c.connector_key)).toEqual(['loan_origination', 'petstore']);
  expect(await dossier.connectors.delete('petstore')).toMatchObject({ connector_key: 'petstore', deleted: true });

  const err = await dossierError(dossier.connectors.importOpenApi({ connector_key: 'x_yaml', openapi_json: 'openapi: 3.0.3\ninfo:\n  title: x' }));
  expect(err).toBeInstanceOf(ValidationError);
  expect(err.code).toBe('openapi_yaml_not_supported');
});
