/**
 * Copyable request samples for every operation of the reference (`x-codeSamples`, which Redoc
 * shows beside each operation): curl, and TypeScript with `@dossier/client`. Both are built from
 * the examples the OpenAPI document itself holds (the request body's `example`, each parameter's
 * `example`), so a sample cannot show a field the contract does not have.
 */

export interface SampleRequest {
  operationId: string;
  method: string;
  /** The path template, e.g. `/api/v1/cases/{case_id}`. */
  path: string;
  pathParams: Record<string, string>;
  query: Record<string, string | number>;
  /** The request body's example; undefined when the operation takes none. */
  body: unknown;
  /** POSTs whose contract requires an Idempotency-Key (spec §4.4, §4.5). */
  idempotent: boolean;
  /** Needs no key (the health checks and this document). */
  public: boolean;
}

export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

/** Example values for path segments whose schema carries no example of its own. */
export const PATH_PARAM_EXAMPLES: Record<string, string> = {
  case_id: 'case_8Kq2mZr4Tn6VwXy0Ab1Cd2Ef',
  session_id: '0b6f7c8e-1d2a-4f5b-9c3d-2e1f0a9b8c7d',
  doc_id: 'doc_2Lm4Np6Qr8St0Uv2Wx4Yz6Ab',
  fact_id: 'employee_name',
  delivery_id: 'dlv_7Gh2Jk4Lm6Np8Qr0St2Uv4Wx',
  connector_key: 'loan_origination',
  operation_id: 'createApplication',
  node_id: 'create_application',
  case_type_id: 'income_verification',
};

type Args = { p: Record<string, string>; body: string; query: string; base: string };

/**
 * How each operation is called through the client's resource methods. An operation missing here
 * gets no TypeScript sample, and the reference test fails: a new route must say how it is called.
 */
export const CLIENT_CALLS: Record<string, (a: Args) => string> = {
  createSession: (a) => `const session = await dossier.sessions.create(${a.body});\n// Send the applicant to session.signed_url\nconsole.log(session.session_id, session.signed_url);`,
  expireSession: (a) => `const session = await dossier.sessions.expire(${q(a.p.session_id)});\nconsole.log(session.status); // 'expired'`,
  getCase: (a) => `const caseRecord = await dossier.cases.retrieve(${q(a.p.case_id)});\nconsole.log(caseRecord.runtime_status, caseRecord.workspace.facts);`,
  listCases: (a) => `for await (const row of dossier.cases.list(${a.query}).items()) {\n  console.log(row.case_id, row.queue_category, row.why_here_code);\n}`,
  decideCase: (a) => `const decided = await dossier.cases.decide(${q(a.p.case_id)}, ${a.body});\nconsole.log(decided.runtime_status); // 'complete'`,
  correctFact: (a) => `const correction = await dossier.cases.facts.update(${q(a.p.case_id)}, ${q(a.p.fact_id)}, ${a.body});\nconsole.log(correction);`,
  listCaseEvents: (a) => `// Follows next_cursor while has_more: store the last cursor to resume later.\nfor await (const event of dossier.cases.events(${q(a.p.case_id)})) {\n  console.log(event.cursor, event.event_type);\n}`,
  getCasePackage: (a) => `const pkg = await dossier.cases.package(${q(a.p.case_id)});\nconsole.log(pkg.case_file_url, pkg.facts);`,
  processDocument: (a) => `// The client sends an Idempotency-Key for you (pass { idempotencyKey } to choose it).\nconst accepted = await dossier.process.create(${a.body});\nconsole.log(accepted.case_id, accepted.document_id, accepted.status);`,
  eraseCase: (a) => `const erasure = await dossier.cases.erase(${q(a.p.case_id)});\nconsole.log(erasure);`,
  eraseDocument: (a) => `const erasure = await dossier.cases.documents.erase(${q(a.p.case_id)}, ${q(a.p.doc_id)});\nconsole.log(erasure);`,
  getDocument: (a) => `const document = await dossier.cases.documents.retrieve(${q(a.p.case_id)}, ${q(a.p.doc_id)});\nconsole.log(document.pages);`,
  sendTestWebhook: (a) => `const result = await dossier.webhooks.test(${a.body});\nconsole.log(result.success, result.status_code);`,
  listWebhookDeliveries: (a) => `for await (const delivery of dossier.webhooks.deliveries.list(${a.query}).items()) {\n  console.log(delivery.delivery_id, delivery.status);\n}`,
  getWebhookDelivery: (a) => `const delivery = await dossier.webhooks.deliveries.retrieve(${q(a.p.delivery_id)});\nconsole.log(delivery.status, delivery.attempt_count);`,
  retryWebhookDelivery: (a) => `const delivery = await dossier.webhooks.deliveries.retry(${q(a.p.delivery_id)});\nconsole.log(delivery.status);`,
  listenWebhooks: (a) =>
    `// \`npm run dossier -- listen --forward-to http://localhost:4567/hook\` reads this stream for you and POSTs\n// each delivery to your receiver. By hand: a text/event-stream of \`ready\` and \`delivery\` events.\nconst url = new URL(\`/api/v1/webhooks/listen?\${new URLSearchParams(${a.query})}\`, ${q(a.base)});\nconst res = await fetch(url, { headers: { authorization: \`Bearer \${process.env.DOSSIER_API_KEY}\` } });\nfor await (const chunk of res.body!) process.stdout.write(chunk);`,
  recordWebhookListenResult: (a) =>
    `// What \`dossier listen\` sends after POSTing a delivery to your receiver.\nconst recorded = await dossier.request('recordWebhookListenResult', { body: ${a.body} });\nconsole.log(recorded.status, recorded.next_attempt_at);`,
  acknowledgeWebhookDelivery: (a) => `const ack = await dossier.webhooks.deliveries.ack(${q(a.p.delivery_id)}, ${a.body});\nconsole.log(ack.handoff_state); // 'acknowledged'`,
  listNotifications: (a) => `for await (const notification of dossier.notifications.list(${a.query}).items()) {\n  console.log(notification);\n}`,
  createConnector: (a) => `const connector = await dossier.connectors.create(${a.body});\nconsole.log(connector.connector_key);`,
  listConnectors: () => `const { connectors } = await dossier.connectors.list();\nconsole.log(connectors.map((c) => c.connector_key));`,
  putConnector: (a) => `const connector = await dossier.connectors.put(${q(a.p.connector_key)}, ${a.body});\nconsole.log(connector.connector_key);`,
  getConnector: (a) => `const connector = await dossier.connectors.retrieve(${q(a.p.connector_key)});\nconsole.log(connector.operations);`,
  deleteConnector: (a) => `const deleted = await dossier.connectors.delete(${q(a.p.connector_key)});\nconsole.log(deleted);`,
  importOpenApiConnector: (a) => `const imported = await dossier.connectors.importOpenApi(${a.body});\nconsole.log(imported);`,
  retryCaseAction: (a) => `const action = await dossier.cases.actions.retry(${q(a.p.case_id)}, ${q(a.p.node_id)});\nconsole.log(action);`,
  testConnectorOperation: (a) =>
    `const test = await dossier.connectors.testOperation(${q(a.p.connector_key)}, ${q(a.p.operation_id)}, ${a.body});\nconsole.log(test);`,
  tryCaseTypeDocument: (a) =>
    `const tried = await dossier.caseTypes.tryDocument(${q(a.p.case_type_id)}, ${a.body});\nfor (const f of tried.facts_found) console.log(f.fact_id, f.value, f.matched_anchor.anchor);\nfor (const f of tried.facts_missing) console.log(f.fact_id, f.suggestions.map((s) => s.message));`,
};

export function codeSamples(baseUrl: string, request: SampleRequest): CodeSample[] {
  const samples: CodeSample[] = [{ lang: 'Shell', label: 'curl', source: curlSample(baseUrl, request) }];
  const ts = typescriptSample(baseUrl, request);
  if (ts !== undefined) samples.push({ lang: 'TypeScript', label: 'TypeScript (@dossier/client)', source: ts });
  return samples;
}

export function curlSample(baseUrl: string, request: SampleRequest): string {
  const path = fillPath(request.path, request.pathParams);
  const query = new URLSearchParams(Object.entries(request.query).map(([k, v]) => [k, String(v)])).toString();
  const url = `${baseUrl}${path}${query ? `?${query}` : ''}`;
  const lines = [`curl${request.method === 'GET' ? '' : ` -X ${request.method}`} "${url}"`];
  if (!request.public) lines.push(`  -H "Authorization: Bearer $DOSSIER_API_KEY"`);
  if (request.idempotent) lines.push(`  -H "Idempotency-Key: $(uuidgen)"`);
  if (request.body !== undefined) {
    lines.push(`  -H "Content-Type: application/json"`);
    lines.push(`  -d '${JSON.stringify(request.body, null, 2).replaceAll("'", "'\\''")}'`);
  }
  return lines.join(' \\\n');
}

export function typescriptSample(baseUrl: string, request: SampleRequest): string | undefined {
  if (request.public) {
    return `const res = await fetch(${q(`${baseUrl}${fillPath(request.path, request.pathParams)}`)});\nconsole.log(res.status, await res.json());`;
  }
  const call = CLIENT_CALLS[request.operationId];
  if (!call) return undefined;
  const body = request.body === undefined ? '{}' : tsLiteral(request.body, 0);
  const query = Object.keys(request.query).length === 0 ? '' : tsLiteral(request.query, 0);
  return [
    `import { Dossier } from '@dossier/client';`,
    ``,
    `const dossier = new Dossier({ apiKey: process.env.DOSSIER_API_KEY!, baseUrl: ${q(baseUrl)} });`,
    ``,
    call({ p: request.pathParams, body, query, base: baseUrl }),
  ].join('\n');
}

function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? name));
}

function q(text: string | undefined): string {
  return `'${(text ?? '').replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/** A value as a TypeScript object literal: bare keys where they are identifiers, two-space indents. */
function tsLiteral(value: unknown, depth: number): string {
  const pad = '  '.repeat(depth + 1);
  const end = '  '.repeat(depth);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => `${pad}${tsLiteral(v, depth + 1)},`).join('\n')}\n${end}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    const key = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : q(k));
    return `{\n${entries.map(([k, v]) => `${pad}${key(k)}: ${tsLiteral(v, depth + 1)},`).join('\n')}\n${end}}`;
  }
  return typeof value === 'string' ? q(value) : JSON.stringify(value);
}
