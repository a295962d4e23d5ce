import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importOpenApiConnector } from '../../src/domain/connectors/openapi-import.ts';
import { createSafeHttpClient } from '../../src/net/safe-fetch.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { fixture, fixtureJson, startDocumentServer, type DocumentServer } from './document-server.ts';
import { caller, PRIVATE_NETWORK_ENV } from './support.ts';

type Op = { operation_id: string; method: string; path: string; parameters: { name: string; in: string }[]; request_body_schema?: unknown; response_schema?: unknown };

describeEachBackend('OpenAPI import', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let docs: DocumentServer;
  let call: ReturnType<typeof caller>;
  const importDoc = (body: Record<string, unknown>) => call('POST', '/api/v1/connectors/openapi', { body });
  const expectError = async (body: Record<string, unknown>, code: string, message?: RegExp) => {
    const res = await importDoc(body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.code, res.body).toBe(code);
    if (message) expect(res.json().error.message).toMatch(message);
    return res.json().error.message as string;
  };

  beforeAll(async () => {
    t = await createTestApp(backend, { env: PRIVATE_NETWORK_ENV });
    ws = await t.workspace();
    call = caller(t, () => ws);
    docs = await startDocumentServer();
  });
  afterAll(async () => {
    await docs.close();
    await t.close();
  });

  describe('five real-world shaped documents', () => {
    it('Pet Store (3.0, as an object): four operations, no auth, schemas bundled with their references kept', async () => {
      const res = await importDoc({ connector_key: 'petstore', openapi: fixtureJson('petstore-3.0.json') });
      expect(res.statusCode, res.body).toBe(201);
      const c = res.json();
      expect(c).toMatchObject({ connector_key: 'petstore', name: 'Pet Store', base_url: 'https://petstore.example.com/v1', auth: { type: 'none', secret_set: false }, version: 1, skipped_operations: [] });
      expect(c.operations.map((o: Op) => `${o.method} ${o.path} ${o.operation_id}`)).toEqual([
        'get /pets listPets',
        'post /pets createPets',
        'get /pets/{petId} showPetById',
        'delete /pets/{petId} deletePet',
      ]);
      const create = c.operations.find((o: Op) => o.operation_id === 'createPets');
      expect(create.request_body_schema).toMatchObject({ type: 'object', required: ['id', 'name'] });
      // A schema that is one reference becomes its target; references inside point into its own `$defs` (issue 23).
      expect(create.request_body_schema).toEqual({ type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer', format: 'int64' }, name: { type: 'string' }, tag: { type: 'string' } } });
      expect(c.operations.find((o: Op) => o.operation_id === 'listPets').response_schema).toEqual({
        type: 'array',
        maxItems: 100,
        items: { $ref: '#/$defs/Pet' },
        $defs: { Pet: create.request_body_schema },
      });
      expect(c.operations.find((o: Op) => o.operation_id === 'showPetById').parameters).toEqual([{ name: 'petId', in: 'path', required: true, schema: { type: 'string' } }]);
    });

    it('Acme CRM (3.1, as a JSON string): bearer auth, 3.1 type arrays, +json bodies, operationIds normalised', async () => {
      const res = await importDoc({ connector_key: 'acme_crm', openapi_json: fixture('crm-3.1.json'), auth: { type: 'bearer', secret: 'crm-token-51c2e8' } });
      expect(res.statusCode, res.body).toBe(201);
      const c = res.json();
      expect(c.base_url).toBe('https://api.acme-crm.example/v3');
      expect(c.auth).toEqual({ type: 'bearer', secret_set: true });
      expect(c.operations.map((o: Op) => o.operation_id)).toEqual(['contacts.list', 'contacts.create', 'contacts.get', 'contacts.update', 'deals.create']);
      expect(c.operations[0].parameters.map((p: { name: string }) => p.name)).toEqual(['email', 'cursor', 'page_size']);
      expect(c.operations[3].request_body_schema.properties.phone).toEqual({ type: ['string', 'null'] });
      expect(res.body).not.toContain('crm-token-51c2e8');
    });

    it('Harbor Loan Origination (3.0, from a URL): relative server resolved against the URL, basic auth mapped, multipart upload skipped', async () => {
      const res = await importDoc({ connector_key: 'harbor_los', openapi_url: `${docs.url}/docs/loan-origination-3.0.json` });
      expect(res.statusCode, res.body).toBe(201);
      const c = res.json();
      expect(c.base_url).toBe(`${docs.url}/api/v2`);
      expect(c.auth).toEqual({ type: 'basic', secret_set: false });
      expect(c.operations.map((o: Op) => o.operation_id)).toEqual(['searchApplications', 'createApplication', 'getApplication', 'replaceApplication', 'attachVerifiedIncome']);
      expect(c.skipped_operations).toEqual([{ operation_id: 'uploadDocument', reason: 'only non-JSON request bodies' }]);
    });

    it('Helpline Ticketing (3.1, from a URL): apiKey header mapped, server variables defaulted, missing operationIds derived', async () => {
      const res = await importDoc({ connector_key: 'helpline', openapi_url: `${docs.url}/docs/ticketing-3.1.json`, include_operations: ['post_tickets', 'get_tickets_ticket_id', 'addComment'] });
      expect(res.statusCode, res.body).toBe(201);
      const c = res.json();
      expect(c.base_url).toBe('https://acme.helpline.example/api');
      expect(c.auth).toEqual({ type: 'header', header_name: 'X-Helpline-Key', secret_set: false });
      expect(c.operations.map((o: Op) => o.operation_id)).toEqual(['post_tickets', 'get_tickets_ticket_id', 'addComment']);
    });

    it('Paylane Payments (3.0): OAuth2 only with a static token in auth; base_url overrides servers; a second import replaces (200, version 2) and keeps the token', async () => {
      await expectError({ connector_key: 'paylane', openapi: fixtureJson('payments-3.0.json') }, 'invalid_openapi_connector', /oauth2.*cannot be mapped/i);
      const first = await importDoc({ connector_key: 'paylane', openapi: fixtureJson('payments-3.0.json'), auth: { type: 'bearer', secret: 'pl_static_token_9d1' } });
      expect(first.statusCode, first.body).toBe(201);
      expect(first.json().base_url).toBe('https://api.eu.paylane.example/v1');
      const second = await importDoc({ connector_key: 'paylane', openapi: fixtureJson('payments-3.0.json'), base_url: 'https://api.us.paylane.example/v1', auth: { type: 'bearer' }, include_operations: ['createPaymentIntent'] });
      expect(second.statusCode, second.body).toBe(200);
      expect(second.json()).toMatchObject({ version: 2, base_url: 'https://api.us.paylane.example/v1', auth: { type: 'bearer', secret_set: true } });
      expect(second.json().operations).toHaveLength(1);
    });

    it('a generated connector is a manifest: GET it and PUT it back', async () => {
      const read = (await call('GET', '/api/v1/connectors/harbor_los')).json();
      const put = await call('PUT', '/api/v1/connectors/harbor_los', { body: read });
      expect(put.statusCode, put.body).toBe(200);
      expect(put.json().operations).toEqual(read.operations);
    });
  });

  describe('every catalog code, through each field where it applies', () => {
    it('missing_connector_key', async () => {
      await expectError({ openapi: fixtureJson('petstore-3.0.json') }, 'missing_connector_key');
      await expectError({ openapi_json: fixture('petstore-3.0.json') }, 'missing_connector_key');
      await expectError({ connector_key: '', openapi_url: `${docs.url}/docs/petstore-3.0.json` }, 'missing_connector_key');
    });

    it('missing_openapi_spec', async () => {
      await expectError({ connector_key: 'x_none' }, 'missing_openapi_spec', /openapi_url, openapi_json.*openapi/);
      await expectError({ connector_key: 'x_none', openapi_url: '', openapi_json: '' }, 'missing_openapi_spec');
    });

    it('openapi_fetch_failed: non-2xx, unreachable, redirect, too large (openapi_url only)', async () => {
      await expectError({ connector_key: 'x_fetch', openapi_url: `${docs.url}/status/404` }, 'openapi_fetch_failed', /HTTP 404/);
      await expectError({ connector_key: 'x_fetch', openapi_url: `${docs.url}/status/503` }, 'openapi_fetch_failed', /HTTP 503/);
      await expectError({ connector_key: 'x_fetch', openapi_url: 'http://127.0.0.1:1/openapi.json' }, 'openapi_fetch_failed', /unreachable/);
      await expectError({ connector_key: 'x_fetch', openapi_url: `${docs.url}/redirect` }, 'openapi_fetch_failed', /redirects are not followed/);
      await expectError({ connector_key: 'x_fetch', openapi_url: `${docs.url}/huge` }, 'openapi_fetch_failed', /too large.*5 MiB/);
      await expectError({ connector_key: 'x_fetch', openapi_url: 'not a url' }, 'openapi_fetch_failed', /address policy/);
    });

    it('openapi_fetch_failed: the address policy and the deadline', async () => {
      const strict = createSafeHttpClient({ policy: { allowPrivateNetwork: false }, timeoutMs: 2_000 });
      const base = { ...t.ctx, config: { ...t.ctx.config, allowPrivateNetwork: false }, http: strict };
      const input = { orgId: ws.orgId, environment: 'test' as const, connector_key: 'x_policy' };
      for (const url of [`${docs.url}/docs/petstore-3.0.json`, 'https://127.0.0.1/openapi.json', 'https://[::1]/openapi.json', 'https://169.254.169.254/latest']) {
        const refused = await importOpenApiConnector(base, { ...input, openapi_url: url });
        expect(refused.ok ? 'ok' : `${refused.code}: ${refused.message}`).toMatch(/^openapi_fetch_failed: openapi_url is refused by the address policy/);
      }
      await strict.close();
      const slow = await importOpenApiConnector({ ...t.ctx, http: t.ctx.outbound.connectors, openApiFetch: { timeoutMs: 200 } }, { ...input, openapi_url: `${docs.url}/slow` });
      expect(slow.ok ? 'ok' : `${slow.code}: ${slow.message}`).toMatch(/^openapi_fetch_failed: openapi_url timed out: no complete answer within 200 ms/);
    });

    it('openapi_yaml_not_supported: YAML as openapi_json, and at openapi_url by content type and by content', async () => {
      await expectError({ connector_key: 'x_yaml', openapi_json: fixture('petstore-3.0.yaml') }, 'openapi_yaml_not_supported', /convert the document to JSON/);
      await expectError({ connector_key: 'x_yaml', openapi_url: `${docs.url}/docs/petstore-3.0.yaml` }, 'openapi_yaml_not_supported', /convert/);
      await expectError({ connector_key: 'x_yaml', openapi_url: `${docs.url}/yaml-as-text` }, 'openapi_yaml_not_supported', /convert/);
    });

    it('invalid_openapi_spec: neither JSON nor YAML, JSON that is not OpenAPI 3, Swagger 2.0, external $refs, through each field', async () => {
      await expectError({ connector_key: 'x_spec', openapi_json: '{"openapi": "3.1.0", "info": ' }, 'invalid_openapi_spec', /neither JSON nor YAML/);
      await expectError({ connector_key: 'x_spec', openapi_json: '"just a string"' }, 'invalid_openapi_spec', /must be a JSON object/);
      await expectError({ connector_key: 'x_spec', openapi_json: '{"name": "not openapi"}' }, 'invalid_openapi_spec', /Not an OpenAPI 3\.0 or 3\.1/);
      await expectError({ connector_key: 'x_spec', openapi_json: fixture('swagger-2.0.json') }, 'invalid_openapi_spec', /Swagger 2\.0.*convert/);
      await expectError({ connector_key: 'x_spec', openapi: fixtureJson('swagger-2.0.json') }, 'invalid_openapi_spec', /Swagger 2\.0.*convert/);
      await expectError({ connector_key: 'x_spec', openapi: { openapi: '4.0.0', info: {} } }, 'invalid_openapi_spec', /Not an OpenAPI 3/);
      await expectError({ connector_key: 'x_spec', openapi: { openapi: '3.0.3', paths: {} } }, 'invalid_openapi_spec', /invalid/);
      await expectError({ connector_key: 'x_spec', openapi: 'a string' as unknown as Record<string, unknown> }, 'invalid_openapi_spec');
      await expectError({ connector_key: 'x_spec', openapi_url: `${docs.url}/docs/swagger-2.0.json` }, 'invalid_openapi_spec', /Swagger/);
      const external = fixtureJson('petstore-3.0.json') as { components: { schemas: Record<string, unknown> } };
      external.components.schemas.Pet = { $ref: 'https://schemas.example.com/pet.json' };
      await expectError({ connector_key: 'x_spec', openapi: external }, 'invalid_openapi_spec', /External \$ref "https:\/\/schemas\.example\.com\/pet\.json"/);
      await expectError({ connector_key: 'x_spec', openapi_json: JSON.stringify(external) }, 'invalid_openapi_spec', /External \$ref/);
    });

    it('invalid_openapi_connector: no usable server, nothing left after filtering, colliding operationIds, only non-JSON bodies, an unmappable scheme', async () => {
      const noServer = { ...fixtureJson('petstore-3.0.json'), servers: [{ url: '/v1' }] };
      await expectError({ connector_key: 'x_conn', openapi: noServer }, 'invalid_openapi_connector', /No usable absolute https server.*relative server URL needs openapi_url/);
      await expectError({ connector_key: 'x_conn', openapi_json: JSON.stringify({ ...noServer, servers: [{ url: 'ftp://petstore.example.com' }] }) }, 'invalid_openapi_connector', /No usable absolute https server/);
      await expectError({ connector_key: 'x_conn', openapi: fixtureJson('petstore-3.0.json'), include_operations: [] }, 'invalid_openapi_connector', /No operations left after filtering/);
      await expectError({ connector_key: 'x_conn', openapi_url: `${docs.url}/docs/petstore-3.0.json`, include_operations: ['adoptPet'] }, 'invalid_openapi_connector', /adoptPet/);
      const colliding = fixtureJson('petstore-3.0.json') as { paths: Record<string, Record<string, { operationId?: string }>> };
      colliding.paths['/pets']!.post!.operationId = 'listPets';
      await expectError({ connector_key: 'x_conn', openapi: colliding }, 'invalid_openapi_connector', /operationIds collide: "listPets"/);
      await expectError({ connector_key: 'x_conn', openapi_url: `${docs.url}/docs/loan-origination-3.0.json`, include_operations: ['uploadDocument'] }, 'invalid_openapi_connector', /Only non-JSON request bodies: uploadDocument/);
      const onlyUpload = fixtureJson('loan-origination-3.0.json') as { paths: Record<string, unknown> };
      onlyUpload.paths = { '/applications/{applicationId}/documents': onlyUpload.paths['/applications/{applicationId}/documents'] };
      await expectError({ connector_key: 'x_conn', openapi: onlyUpload, base_url: 'https://los.example.com' }, 'invalid_openapi_connector', /only non-JSON request bodies/);
      const cookie = fixtureJson('ticketing-3.1.json') as { components: { securitySchemes: Record<string, unknown> } };
      cookie.components.securitySchemes.apiKey = { type: 'apiKey', in: 'cookie', name: 'session' };
      await expectError({ connector_key: 'x_conn', openapi_json: JSON.stringify(cookie) }, 'invalid_openapi_connector', /apiKey in cookie.*cannot be mapped/);
      expect((await call('GET', '/api/v1/connectors/x_conn')).statusCode).toBe(404);
    });

    it('invalid_connector_payload: a malformed key or auth given with the document', async () => {
      await expectError({ connector_key: 'Not-A-Key', openapi: fixtureJson('petstore-3.0.json') }, 'invalid_connector_payload', /\$\.connector_key/);
      await expectError({ connector_key: 'x_auth', openapi: fixtureJson('petstore-3.0.json'), auth: { type: 'header', secret: 'k' } }, 'invalid_connector_payload', /\$\.auth\.header_name/);
    });
  });
});
