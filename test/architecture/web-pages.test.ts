import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Web pages are shaped like API routes (issue 24, item 3): one file per page, each declaring its
 * route with zod schemas for what it reads (`src/web/page-route.ts`), and register functions that
 * only list pages. Checked on the source text, so a page registered by hand or a cast of the
 * request fails here.
 */

const root = resolve(import.meta.dirname, '../..');
const web = join(root, 'src/web');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const files = sourceFiles(web).map((path) => ({ path: relative(web, path), text: readFileSync(path, 'utf8') }));

/** Where routes are added by hand, each for a reason that is not a page. */
const NOT_PAGES: Record<string, string> = {
  'page-route.ts': 'registers the declared pages',
  'assets.ts': 'serves versioned static files under each face',
};

const HAND_ROUTE = /\bscope\.(get|post|put|delete|route)\s*\(/;
const REQUEST_CAST = /\brequest\.(params|query|body)\s+as\b/;

describe('web pages shaped like API routes (issue 24, item 3)', () => {
  it('sees the web faces (a test that parsed nothing would pass anything)', () => {
    expect(files.length).toBeGreaterThan(40);
    expect(files.some((f) => f.text.includes('registerPages('))).toBe(true);
  });

  it('adds no route by hand outside the page declarations', () => {
    const offenders = files.filter((f) => HAND_ROUTE.test(f.text) && !(f.path in NOT_PAGES)).map((f) => f.path);
    expect(offenders).toEqual([]);
  });

  it('casts no request part: params, query and body come parsed by the page schema', () => {
    const offenders = files.filter((f) => REQUEST_CAST.test(f.text) && !(f.path in NOT_PAGES)).map((f) => f.path);
    expect(offenders).toEqual([]);
  });


  it('catches a page registered by hand (the rule itself can fail)', () => {
    expect(HAND_ROUTE.test("scope.get('/x', { config: { auth: 'operator' } }, async () => {})")).toBe(true);
    expect(REQUEST_CAST.test('const { id } = request.params as { id: string };')).toBe(true);
  });
});
