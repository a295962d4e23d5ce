import { fail, ok, type Result } from '../errors.ts';

/**
 * The `$ref`s of an OpenAPI document, measured before anything is followed (issue 23, item 1).
 *
 * A 2 KB document whose schemas refer to each other in a binary tree (A1 = {l: $ref A2, r: $ref
 * A2}, …) doubles in size with each level once dereferenced: the parser's dereference shares the
 * copies, but its validator and anything that serialises the result walk every one (20 levels: 11.5
 * s on the event loop, 62 MB). So nothing here expands a reference to a component schema:
 * - validation sees every schema reference replaced by `{}` ({@link validationCopy}): each schema
 *   is still checked once, where the document defines it;
 * - a stored schema keeps its references, with the component schemas they reach bundled once
 *   under `$defs` ({@link bundleSchema});
 * - the other references (parameters, request bodies, responses, path items…) are followed, so
 *   their expanded size is counted over the reference graph first, memoised (linear), and a cycle
 *   among them is refused.
 * Every refusal is `invalid_openapi_spec` naming the limit. The figures are in docs/decisions.md.
 */
export const OPENAPI_LIMITS = {
  /** The fetch cap (issue 14): the largest document read at all, in characters of JSON. */
  maxDocumentChars: 5 * 1024 * 1024,
  /** Nesting of objects and arrays; real documents stay under 40. */
  maxDepth: 128,
  /** `$ref`s in the document. */
  maxRefs: 50_000,
  /** JSON values of the document once its non-schema references are followed. */
  maxExpandedNodes: 500_000,
  /** Characters of the stored operations with their bundles: the request body limit, so a generated connector can be PUT back. */
  maxStoredChars: 1024 * 1024,
} as const;

export type Limits = { readonly [K in keyof typeof OPENAPI_LIMITS]: number };
type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const refOf = (v: unknown): string | undefined => (isObject(v) && typeof v.$ref === 'string' ? v.$ref : undefined);

const SCHEMAS_PREFIX = '/components/schemas/';

/** `#/a/b~1c` to ['a', 'b/c'], or undefined when it is not a local JSON pointer. */
export function pointerSegments(ref: string): string[] | undefined {
  if (!ref.startsWith('#')) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (fragment === '') return [];
  if (!fragment.startsWith('/')) return undefined;
  return fragment.slice(1).split('/').map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
}

const escapeSegment = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

/** The decoded pointer (`/components/schemas/Pet`): one key per target, whatever its spelling. */
function pointerKey(segments: readonly string[]): string {
  return segments.map((s) => `/${escapeSegment(s)}`).join('');
}

/** A reference to a component schema (or inside one): left as a reference, never expanded. */
const isSchemaPointer = (key: string) => key.startsWith(SCHEMAS_PREFIX) && key.length > SCHEMAS_PREFIX.length;

function resolveSegments(doc: unknown, segments: readonly string[]): { found: true; value: unknown } | { found: false } {
  let at: unknown = doc;
  for (const s of segments) {
    if (Array.isArray(at) && /^(0|[1-9]\d*)$/.test(s) && Number(s) < at.length) at = at[Number(s)];
    else if (isObject(at) && Object.hasOwn(at, s)) at = at[s];
    else return { found: false };
  }
  return { found: true, value: at };
}

/** What the checks learnt, for the later steps. */
export interface RefIndex {
  readonly doc: Obj;
  readonly limits: Limits;
  /** JSON length of a target's subtree, by pointer key (filled as bundles are estimated). */
  readonly sizes: Map<string, number>;
  /** The references inside a target's subtree, by pointer key. */
  readonly refsInside: Map<string, string[]>;
}

const tooLarge = (what: string) => fail('invalid_openapi_spec', `The OpenAPI document is too large: ${what}.`);

/**
 * One pass over the document (iterative, so depth cannot overflow the stack): depth, `$ref`
 * count, external and dangling references. Then the expanded size of the non-schema references.
 */
export function checkReferences(doc: Obj, limits: Limits = OPENAPI_LIMITS): Result<RefIndex> {
  let refs = 0;
  const stack: { value: unknown; depth: number }[] = [{ value: doc, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth > limits.maxDepth) return tooLarge(`it nests deeper than ${limits.maxDepth} levels`);
    const ref = refOf(value);
    if (ref !== undefined) {
      if (++refs > limits.maxRefs) return tooLarge(`it has more than ${limits.maxRefs} $refs`);
      const segments = pointerSegments(ref);
      if (!ref.startsWith('#')) return fail('invalid_openapi_spec', `External $ref "${ref.slice(0, 200)}" is not followed: bundle the document into one file first.`);
      if (!segments || !resolveSegments(doc, segments).found) return fail('invalid_openapi_spec', `The OpenAPI document is invalid: $ref "${ref.slice(0, 200)}" points at nothing in the document.`);
    }
    for (const inner of Array.isArray(value) ? value : Object.values(value)) stack.push({ value: inner, depth: depth + 1 });
  }
  const expanded = expandedNodes(doc, limits.maxExpandedNodes);
  if (!expanded.ok) return expanded;
  return ok({ doc, limits, sizes: new Map(), refsInside: new Map() });
}

/**
 * JSON values of the document with every non-schema reference replaced by its target, counted
 * over the reference graph with each target measured once (a schema reference counts one).
 * The count stops as soon as it passes `max`, so it stays linear however large the expansion.
 */
function expandedNodes(doc: Obj, max: number): Result<number> {
  const memo = new Map<string, number>();
  const visiting: string[] = [];
  const cycle = (key: string) =>
    fail('invalid_openapi_spec', `The OpenAPI document has a circular $ref outside components/schemas (${[...visiting.slice(visiting.indexOf(key)), key].map((k) => `#${k}`).join(' → ').slice(0, 300)}): only schemas may refer to themselves.`);
  const over = () => tooLarge(`following its $refs to parameters, responses, request bodies and path items would make more than ${max} values (schema $refs are not counted: they stay references)`);

  function measureTarget(key: string, segments: string[]): Result<number> {
    const known = memo.get(key);
    if (known !== undefined) return ok(known);
    if (visiting.includes(key)) return cycle(key);
    visiting.push(key);
    const found = resolveSegments(doc, segments);
    const counted = found.found ? measure(found.value) : ok(1);
    visiting.pop();
    if (counted.ok) memo.set(key, counted.value);
    return counted;
  }

  function measure(value: unknown): Result<number> {
    let total = 0;
    const stack: unknown[] = [value];
    while (stack.length > 0) {
      const v = stack.pop();
      total++;
      if (total > max) return over();
      if (v === null || typeof v !== 'object') continue;
      const ref = refOf(v);
      if (ref !== undefined) {
        const segments = pointerSegments(ref)!;
        const key = pointerKey(segments);
        if (isSchemaPointer(key)) continue;
        const inner = measureTarget(key, segments);
        if (!inner.ok) return inner;
        total += inner.value;
        if (total > max) return over();
        continue;
      }
      for (const inner of Array.isArray(v) ? v : Object.values(v)) stack.push(inner);
    }
    return ok(total);
  }

  return measure(doc);
}

/** A copy for the validator: each reference to a component schema is `{}`, so nothing is expanded into copies. */
export function validationCopy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(validationCopy);
  const ref = refOf(value);
  if (ref !== undefined && isSchemaPointer(pointerKey(pointerSegments(ref)!))) return {};
  const copy: Obj = {};
  for (const [k, v] of Object.entries(value)) copy[k] = validationCopy(v);
  return copy;
}

/**
 * Follows a chain of references to a non-schema object (a parameter, a request body, a response,
 * a path item). Each hop was checked to resolve, and cycles among them were refused.
 */
export function followRef(index: RefIndex, value: unknown): unknown {
  let at = value;
  for (let hops = 0; hops < 64; hops++) {
    const ref = refOf(at);
    if (ref === undefined) return at;
    const found = resolveSegments(index.doc, pointerSegments(ref) ?? []);
    if (!found.found) return undefined;
    at = found.value;
  }
  return undefined;
}

/** Where a reference's target is kept in a bundle: a component schema under its name, any other target under its pointer. */
function defOf(segments: readonly string[]): { defName: string; targetSegments: string[]; rest: string[] } {
  const key = pointerKey(segments);
  if (isSchemaPointer(key)) return { defName: segments[2]!, targetSegments: segments.slice(0, 3), rest: segments.slice(3) };
  return { defName: key, targetSegments: [...segments], rest: [] };
}

function collectRefs(value: unknown): string[] {
  const found: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    const ref = refOf(v);
    if (ref !== undefined) found.push(ref);
    for (const inner of Array.isArray(v) ? v : Object.values(v)) stack.push(inner);
  }
  return found;
}

/** The definitions a schema reaches, each once, with the JSON length they will take. */
function reachedDefs(index: RefIndex, schema: unknown): Map<string, { segments: string[]; chars: number }> {
  const reached = new Map<string, { segments: string[]; chars: number }>();
  const pending = collectRefs(schema);
  while (pending.length > 0) {
    const { defName, targetSegments } = defOf(pointerSegments(pending.pop()!)!);
    if (reached.has(defName)) continue;
    const key = pointerKey(targetSegments);
    let inside = index.refsInside.get(key);
    let chars = index.sizes.get(key);
    if (inside === undefined || chars === undefined) {
      const target = resolveSegments(index.doc, targetSegments);
      const value = target.found ? target.value : {};
      inside = collectRefs(value);
      chars = JSON.stringify(value)?.length ?? 2;
      index.refsInside.set(key, inside);
      index.sizes.set(key, chars);
    }
    reached.set(defName, { segments: targetSegments, chars: chars + defName.length + 4 });
    pending.push(...inside);
  }
  return reached;
}

/** The JSON length a bundled schema will take, counted without building it. */
export function bundledChars(index: RefIndex, schema: unknown): number {
  let chars = JSON.stringify(schema)?.length ?? 2;
  for (const def of reachedDefs(index, schema).values()) chars += def.chars;
  return chars;
}

function rewriteRefs(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(rewriteRefs);
  const copy: Obj = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === '$ref' && typeof v === 'string') {
      const { defName, rest } = defOf(pointerSegments(v)!);
      copy[k] = `#/$defs/${[defName, ...rest].map(escapeSegment).join('/')}`;
    } else copy[k] = rewriteRefs(v);
  }
  return copy;
}

/**
 * A stored schema: self-contained and bounded. A schema that is only a reference becomes its
 * target (one copy, at the root); every reference left points into `$defs`, which holds each
 * component schema the schema reaches exactly once (by name; any other target by its pointer).
 */
export function bundleSchema(index: RefIndex, schema: Obj): Obj {
  let root: Obj = schema;
  for (let hops = 0; hops < 64; hops++) {
    const ref = refOf(root);
    if (ref === undefined || Object.keys(root).length !== 1) break;
    const target = resolveSegments(index.doc, pointerSegments(ref)!);
    if (!target.found || !isObject(target.value) || target.value === schema) break;
    root = target.value;
  }
  const defs = reachedDefs(index, root);
  const bundled = rewriteRefs(root) as Obj;
  if (defs.size === 0) return bundled;
  const $defs: Obj = isObject(bundled.$defs) ? { ...bundled.$defs } : {};
  for (const [name, def] of defs) {
    if (Object.hasOwn($defs, name)) continue;
    const target = resolveSegments(index.doc, def.segments);
    $defs[name] = rewriteRefs(target.found ? target.value : {});
  }
  return { ...bundled, $defs };
}
