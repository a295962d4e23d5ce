import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Issue 23, item 7: a workspace check that cannot be forgotten. Every exported storage function
 * that reads or writes a workspace table (one with `org_id` and `environment` columns) takes the
 * workspace as a required argument, so a handler that forgets it does not compile. Deployment-wide
 * access (workers holding a claimed row, sweeps, the operator's CLI) has its own functions, named
 * `…Unscoped` so that a reader and a reviewer see the choice at the call site.
 *
 * What counts as the workspace argument, read from the source text (TypeScript 7 has no JavaScript
 * API, so this parses with patterns, as layers.test.ts does):
 * - a required parameter typed `Tenant` (src/ports/tenant.ts), `Tenant & {…}`, or an interface of
 *   src/storage that `extends Tenant` (a query or row that carries its workspace);
 * - for a table managed per organisation across environments (api_keys), a required `orgId`;
 * - an insert only (no select, update, delete or raw SQL, and any upsert conflicts on `org_id`):
 *   its row type requires `org_id` and `environment`, so it cannot reach another workspace's rows.
 */

const root = resolve(import.meta.dirname, '../..');
const storage = join(root, 'src/storage');

/**
 * Tables with org_id and environment that are not a workspace's data. operator_sessions: the row is
 * the operator's credential, found by the hash of its token; its `environment` is the operator's
 * current choice (the environment switch rewrites it), not an owner.
 */
const NOT_WORKSPACE_DATA = new Map([['operator_sessions', 'an operator credential; environment is the current choice, not the owner']]);

/** Tables an organisation manages across both environments (the dashboard's keys page lists both). */
const ORG_MANAGED = new Set(['api_keys']);

/**
 * Functions keyed by a secret the caller holds, whose row then names the workspace. Each is the
 * first step of an authentication, not an access by id.
 */
const KEYED_BY_SECRET = new Map([
  ['findApiKeyByHash', 'API key authentication: the hash of the presented key'],
  ['findLiveOperatorSession', 'dashboard sign-in: the hash of the session cookie'],
  ['lockSession', "the applicant's proof check: authorizeApplicant compares the token hash before anything else is read"],
  ['findApplicantPage', "the applicant's page read: compares the token hash before rendering anything"],
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' || entry.name === 'tables' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

/** Table name → whether it has both org_id and environment, from the declarations in src/storage/tables. */
function workspaceTables(): Set<string> {
  const text = readdirSync(join(storage, 'tables'))
    .map((f) => readFileSync(join(storage, 'tables', f), 'utf8'))
    .join('\n');
  const scoped = new Set<string>();
  for (const m of text.matchAll(/export interface (\w+) \{([^}]*)\}/g)) {
    if (/^\s*org_id:/m.test(m[2]!) && /^\s*environment:/m.test(m[2]!)) scoped.add(m[1]!);
  }
  const tables = new Set<string>();
  for (const m of text.matchAll(/^\s*(\w+):\s*(\w+);/gm)) if (scoped.has(m[2]!)) tables.add(m[1]!);
  return tables;
}

/** The text between the bracket at `open` and its partner. */
function enclosed(text: string, open: number): { inner: string; end: number } {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if ('([{<'.includes(c) && !(c === '<' && text[i - 1] === '=')) depth++;
    else if (')]}>'.includes(c) && !(c === '>' && text[i - 1] === '=')) {
      depth--;
      if (depth === 0) return { inner: text.slice(open + 1, i), end: i };
    }
  }
  throw new Error(`unbalanced brackets at ${open}`);
}

/** Top-level parameters as `name`, whether required, and the type text. */
function parameters(list: string): { name: string; required: boolean; type: string }[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (let i = 0; i < list.length; i++) {
    const c = list[i]!;
    if ('([{<'.includes(c) && !(c === '<' && list[i - 1] === '=')) depth++;
    if (')]}>'.includes(c) && !(c === '>' && list[i - 1] === '=')) depth--;
    if (c === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => {
      const m = /^(\w+)(\??):\s*([\s\S]*?)(\s*=\s*[\s\S]*)?$/.exec(p);
      if (!m) return { name: p, required: false, type: '' };
      return { name: m[1]!, required: m[2] === '' && m[4] === undefined, type: m[3]!.trim() };
    });
}

interface StorageFunction {
  file: string;
  name: string;
  exported: boolean;
  params: ReturnType<typeof parameters>;
  body: string;
}

function functionsOf(file: string, text: string): StorageFunction[] {
  const found: StorageFunction[] = [];
  for (const m of text.matchAll(/^(export )?(?:async )?function (\w+)(?:<[^(]*>)?\(/gm)) {
    const open = m.index + m[0].length - 1;
    const params = enclosed(text, open);
    // The body runs to the closing brace at the start of a line (the formatting every file follows);
    // a return type's braces come before it and name no table.
    const close = text.indexOf('\n}', params.end);
    found.push({ file, name: m[2]!, exported: m[1] !== undefined, params: parameters(params.inner), body: text.slice(params.end + 1, close < 0 ? text.length : close) });
  }
  return found;
}

const TABLES = workspaceTables();
const QUERY = /\.(selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin|with)\(\s*'(\w+)/g;
const RAW_SQL_TABLE = /\b(?:from|join|update|into)\s+(\w+)/gi;

function tablesTouched(body: string): { tables: Set<string>; insertOnly: boolean } {
  const tables = new Set<string>();
  let insertOnly = true;
  for (const m of body.matchAll(QUERY)) {
    if (TABLES.has(m[2]!)) tables.add(m[2]!);
    if (m[1] !== 'insertInto') insertOnly = false;
  }
  const rawSql = /\bsql(<[\s\S]*?>)?`/.test(body);
  if (rawSql) {
    for (const m of body.matchAll(RAW_SQL_TABLE)) if (TABLES.has(m[1]!)) tables.add(m[1]!);
    insertOnly = false;
  }
  if (/\.onConflict\(/.test(body) && !/'org_id'/.test(body)) insertOnly = false;
  return { tables, insertOnly };
}

const files = sourceFiles(storage).map((path) => ({ path: relative(root, path), text: withoutComments(readFileSync(path, 'utf8')) }));
const functions = files.flatMap((f) => functionsOf(f.path, f.text));

/** Interfaces of src/storage that carry their workspace by extending Tenant. */
const TENANT_SHAPED = new Set(files.flatMap((f) => [...f.text.matchAll(/interface (\w+) extends ([\w, ]+)\{/g)].filter((m) => /\bTenant\b/.test(m[2]!)).map((m) => m[1]!)));

function takesTenant(fn: StorageFunction): boolean {
  return fn.params.some((p) => p.required && (/^Tenant\b|&\s*Tenant\b|\bTenant\s*&/.test(p.type) || TENANT_SHAPED.has(p.type)));
}

function takesOrg(fn: StorageFunction): boolean {
  return fn.params.some((p) => p.required && p.name === 'orgId' && p.type === 'string');
}

/** Own tables plus those of the module's own helpers it calls (one file, to a fixed point). */
function touched(fn: StorageFunction): { tables: Set<string>; insertOnly: boolean } {
  const local = functions.filter((g) => g.file === fn.file);
  const seen = new Set<string>([fn.name]);
  const queue = [fn];
  const tables = new Set<string>();
  let insertOnly = true;
  while (queue.length > 0) {
    const current = queue.pop()!;
    const own = tablesTouched(current.body);
    own.tables.forEach((t) => tables.add(t));
    insertOnly &&= own.insertOnly;
    for (const g of local) {
      if (!seen.has(g.name) && new RegExp(`\\b${g.name}\\(`).test(current.body)) {
        seen.add(g.name);
        queue.push(g);
      }
    }
  }
  return { tables, insertOnly };
}

const audited = functions
  .filter((fn) => fn.exported)
  .map((fn) => ({ fn, ...touched(fn) }))
  .filter(({ tables }) => [...tables].some((t) => !NOT_WORKSPACE_DATA.has(t)));

describe('the workspace argument of storage (issue 23, item 7)', () => {
  it('sees the storage layer (a test that parsed nothing would pass anything)', () => {
    expect(TABLES.size).toBeGreaterThan(15);
    for (const table of ['cases', 'documents', 'facts', 'webhook_endpoints', 'webhook_deliveries', 'api_keys', 'connectors']) expect(TABLES).toContain(table);
    expect(functions.length).toBeGreaterThan(100);
    expect(audited.length).toBeGreaterThan(60);
    expect(audited.some(({ fn }) => fn.name === 'findCaseSnapshot' && takesTenant(fn))).toBe(true);
    expect(TENANT_SHAPED.size).toBeGreaterThan(3);
  });

  it('gives every exported function over a workspace table a required workspace, unless it says …Unscoped', () => {
    const missing = audited
      .filter(({ fn, tables, insertOnly }) => {
        if (fn.name.endsWith('Unscoped') || KEYED_BY_SECRET.has(fn.name) || takesTenant(fn)) return false;
        if ([...tables].every((t) => ORG_MANAGED.has(t)) && takesOrg(fn)) return false;
        return !insertOnly;
      })
      .map(({ fn, tables }) => `${fn.file}: ${fn.name}(${fn.params.map((p) => p.name).join(', ')}) touches ${[...tables].join(', ')}`);
    expect(missing).toEqual([]);
  });

  it('keeps the allow-list of secret-keyed lookups true: each exists and has no workspace argument to take', () => {
    for (const name of KEYED_BY_SECRET.keys()) {
      const fn = audited.find((a) => a.fn.name === name);
      expect(fn, `${name} is allow-listed but is not a storage function over a workspace table`).toBeDefined();
      expect(takesTenant(fn!.fn), `${name} takes a Tenant: remove it from the allow-list`).toBe(false);
    }
  });

  it('catches a function that forgets the workspace (the rule itself can fail)', () => {
    const text = withoutComments(`export async function findThing(db: Executor, thingId: string, scope?: Tenant) {
      return db.selectFrom('cases').selectAll().where('case_id', '=', thingId).executeTakeFirst();
    }`);
    const [fn] = functionsOf('example.ts', text);
    expect(fn && tablesTouched(fn.body).tables).toEqual(new Set(['cases']));
    expect(fn && takesTenant(fn)).toBe(false);
  });
});
