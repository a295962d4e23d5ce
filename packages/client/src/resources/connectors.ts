import type { RequestOptions } from '../http.ts';
import type { Operations, RequestBody, ResponseBody } from '../operations.ts';
import type { WithResponse } from '../response.ts';

export type ConnectorManifest = RequestBody<'createConnector'>;
export type Connector = ResponseBody<'getConnector'>;
export type ConnectorList = ResponseBody<'listConnectors'>;
export type ConnectorDeleted = ResponseBody<'deleteConnector'>;
export type OpenApiImportParams = RequestBody<'importOpenApiConnector'>;
export type ConnectorImport = ResponseBody<'importOpenApiConnector'>;
export type ConnectorOperationTestParams = RequestBody<'testConnectorOperation'>;
export type ConnectorOperationTest = ResponseBody<'testConnectorOperation'>;

const withOptions = (options?: RequestOptions) => (options ? { options } : {});

/** `/api/v1/connectors`: descriptions of your own API that workflow `action` nodes call. */
export class Connectors {
  readonly #ops: Operations;

  constructor(ops: Operations) {
    this.#ops = ops;
  }

  /** POST /api/v1/connectors: imports a manifest (201 created, 200 replaced with `version` + 1). */
  create(manifest: ConnectorManifest, options?: RequestOptions): Promise<WithResponse<Connector>> {
    return this.#ops.call('createConnector', { body: manifest, ...withOptions(options) });
  }

  /**
   * POST /api/v1/connectors/openapi: generates a connector from an OpenAPI 3.0/3.1 JSON document
   * given as exactly one of `openapi_url`, `openapi_json` or `openapi`.
   */
  importOpenApi(params: OpenApiImportParams, options?: RequestOptions): Promise<WithResponse<ConnectorImport>> {
    return this.#ops.call('importOpenApiConnector', { body: params, ...withOptions(options) });
  }

  /** PUT /api/v1/connectors/{connector_key}: creates or replaces; leave `auth.secret` out to keep the stored one. */
  put(connectorKey: string, manifest: Omit<ConnectorManifest, 'connector_key'> & { connector_key?: string }, options?: RequestOptions): Promise<WithResponse<Connector>> {
    return this.#ops.call('putConnector', {
      path: { connector_key: connectorKey },
      body: { ...manifest, connector_key: manifest.connector_key ?? connectorKey },
      ...withOptions(options),
    });
  }

  /** GET /api/v1/connectors/{connector_key}: the manifest without its secret (`auth.secret_set`). */
  retrieve(connectorKey: string, options?: RequestOptions): Promise<WithResponse<Connector>> {
    return this.#ops.call('getConnector', { path: { connector_key: connectorKey }, ...withOptions(options) });
  }

  /** GET /api/v1/connectors: every connector of the workspace. */
  list(options?: RequestOptions): Promise<WithResponse<ConnectorList>> {
    return this.#ops.call('listConnectors', { ...withOptions(options) });
  }

  /**
   * POST /api/v1/connectors/{connector_key}/operations/{operation_id}/test: calls one operation now
   * with sample inputs (a real call) and reports the status code, duration and an excerpt.
   */
  testOperation(connectorKey: string, operationId: string, params: ConnectorOperationTestParams = {}, options?: RequestOptions): Promise<WithResponse<ConnectorOperationTest>> {
    return this.#ops.call('testConnectorOperation', { path: { connector_key: connectorKey, operation_id: operationId }, body: params, ...withOptions(options) });
  }

  /** DELETE /api/v1/connectors/{connector_key}. */
  delete(connectorKey: string, options?: RequestOptions): Promise<WithResponse<ConnectorDeleted>> {
    return this.#ops.call('deleteConnector', { path: { connector_key: connectorKey }, ...withOptions(options) });
  }
}
