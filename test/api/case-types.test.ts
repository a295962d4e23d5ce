import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getCaseType, putCaseType } from '../../src/domain/case-types/case-types.ts';
import { parseCaseTypeDefinition } from '../../src/domain/case-types/definition.ts';
import { createTestApp, describeEachBackend, itOnPostgres, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { dossierFor } from '../support/dossier-client.ts';
import { addressProof, incomeVerification, tenancyApplication } from '../support/fixtures.ts';

const clone = <T>(v: T): T => structuredClone(v);

describe('case type definitions', () => {
  it('accepts the shared examples unchanged', () => {
    expect(parseCaseTypeDefinition(incomeVerification).ok).toBe(true);
    expect(parseCaseTypeDefinition(addressProof).ok).toBe(true);
    expect(parseCaseTypeDefinition(tenancyApplication).ok).toBe(true);
  });

  it('checks form fields: options only on choices, currency only on money, unique field ids, valid patterns', () => {
    const bad = clone(tenancyApplication) as any;
    const fields = bad.workflow.nodes[0].fields;
    delete fields[3].options; // one_of without options
    fields[1].options = ['Mobile']; // phone with options
    fields[0].currency = 'GBP'; // currency on a text field
    fields[4].currency = 'XYZ'; // no such currency
    fields[4].validation.pattern = '(';
    fields[5].field_id = 'phone'; // duplicate of fields[1]
    fields[2].validation = { max: 3 }; // max on an address
    bad.workflow.nodes[0].fields.push({ field_id: 'kind', label: 'Kind', type: 'select', options: ['A', 'A'] });
    const parsed = parseCaseTypeDefinition(bad);
    if (parsed.ok) throw new Error('expected problems');
    expect(parsed.problems).toEqual(
      expect.arrayContaining([
        { path: '$.workflow.nodes[0].fields[3].options', message: 'a one_of field needs options' },
        { path: '$.workflow.nodes[0].fields[1].options', message: 'options are for select and one_of fields, not phone' },
        { path: '$.workflow.nodes[0].fields[0].currency', message: 'currency is for money fields, not text' },
        { path: '$.workflow.nodes[0].fields[4].currency', message: 'unknown currency "XYZ"' },
        { path: '$.workflow.nodes[0].fields[4].validation.pattern', message: 'is not a valid regular expression' },
        { path: '$.workflow.nodes[0].fields[5].field_id', message: 'duplicate field_id "phone"' },
        { path: '$.workflow.nodes[0].fields[2].validation', message: 'min and max are for money and number fields, not address' },
        { path: '$.workflow.nodes[0].fields[6].options[1]', message: 'duplicate option "A"' },
      ]),
    );
    const wrongType = clone(tenancyApplication) as any;
    wrongType.workflow.nodes[0].fields[2].type = 'postal_address';
    wrongType.workflow.nodes[0].fields[4].currency = 'gbp';
    const again = parseCaseTypeDefinition(wrongType);
    if (again.ok) throw new Error('expected problems');
    expect(again.problems.map((p) => p.path)).toEqual(expect.arrayContaining(['$.workflow.nodes[0].fields[2].type', '$.workflow.nodes[0].fields[4].currency']));
  });

  it('reports every problem at once, each with its JSON path', () => {
    const bad = clone(incomeVerification) as any;
    bad.operating_mode = 'sometimes';
    bad.facts[0].type = 'colour';
    delete bad.facts[1].anchors;
    bad.workflow.nodes[2].rules[1].days = -3;
    bad.workflow.nodes[3].extra = true;
    const parsed = parseCaseTypeDefinition(bad);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    const paths = parsed.problems.map((p) => p.path);
    expect(paths).toEqual(
      expect.arrayContaining(['$.operating_mode', '$.facts[0].type', '$.facts[1].anchors', '$.workflow.nodes[2].rules[1].days', '$.workflow.nodes[3]']),
    );
    expect(parsed.problems.length).toBeGreaterThanOrEqual(5);
  });

  it('checks references between facts, fields, rules and uploads', () => {
    const bad = clone(incomeVerification) as any;
    bad.workflow.nodes[2].rules[0].fact_ids.push('ghost');
    bad.workflow.nodes[2].rules[2].field_id = 'nobody';
    bad.facts[0].document_kinds = ['passport'];
    bad.facts.push({ ...bad.facts[1] });
    const parsed = parseCaseTypeDefinition(bad);
    if (parsed.ok) throw new Error('expected problems');
    expect(parsed.problems).toEqual(
      expect.arrayContaining([
        { path: '$.workflow.nodes[2].rules[0].fact_ids[3]', message: 'unknown fact "ghost"' },
        { path: '$.workflow.nodes[2].rules[2].field_id', message: 'unknown form field "nobody"' },
        { path: '$.facts[0].document_kinds[0]', message: 'no upload node accepts document kind "passport"' },
        { path: '$.facts[4].fact_id', message: 'duplicate fact_id "employer_name"' },
      ]),
    );
  });

  it('refuses a non-object', () => {
    const parsed = parseCaseTypeDefinition([1, 2]);
    expect(parsed.ok).toBe(false);
  });
});

describeEachBackend('case type versions', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  beforeAll(async () => {
    t = await createTestApp(backend);
    ws = await t.workspace();
  });
  afterAll(() => t.close());

  it('gives a changed workflow a new version; an unchanged one or a rename keeps it; cases stay pinned', async () => {
    const first = await putCaseType(t.ctx, { orgId: ws.orgId, environment: 'test', definition: incomeVerification });
    expect(first).toMatchObject({ ok: true, value: { workflow_version: 'v1', version_created: true } });
    const same = await putCaseType(t.ctx, { orgId: ws.orgId, environment: 'test', definition: { ...incomeVerification, name: 'Renamed' } });
    expect(same).toMatchObject({ ok: true, value: { workflow_version: 'v1', version_created: false } });

    const dossier = dossierFor(t, ws);
    const { case_id: caseId } = await dossier.sessions.create({ case_type_id: 'income_verification' });

    const changed = clone(incomeVerification) as any;
    changed.workflow.nodes = changed.workflow.nodes.filter((n: { type: string }) => n.type !== 'review');
    const second = await putCaseType(t.ctx, { orgId: ws.orgId, environment: 'test', definition: changed });
    expect(second).toMatchObject({ ok: true, value: { workflow_version: 'v2', version_created: true } });
    const current = await getCaseType(t.ctx, { orgId: ws.orgId, environment: 'test', caseTypeId: 'income_verification' });
    expect(current).toMatchObject({ ok: true, value: { workflow_version: 'v2', name: 'Income verification' } });

    expect((await dossier.cases.retrieve(caseId)).workflow_version).toBe('v1');

    const live = await getCaseType(t.ctx, { orgId: ws.orgId, environment: 'live', caseTypeId: 'income_verification' });
    expect(live.ok).toBe(false);
  });

  itOnPostgres(backend, 'numbers versions correctly under concurrent puts', async () => {
    const variants = [10, 20, 30, 40].map((days) => {
      const d = clone(addressProof) as any;
      d.workflow.nodes[1].rules[1].days = days;
      return d;
    });
    const results = await Promise.all(variants.map((definition) => putCaseType(t.ctx, { orgId: ws.orgId, environment: 'test', definition })));
    const versions = results.map((r) => (r.ok ? r.value.workflow_version : 'error')).sort();
    expect(versions).toEqual(['v1', 'v2', 'v3', 'v4']);
  });
});
