import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { z } from 'zod';
import { queryText, type WebPage } from '../../page-route.ts';
import { html, sendPage } from '../../render.ts';
import { CONTENT_SECURITY_POLICY } from '../../security.ts';

/**
 * {base_url}/docs: the API reference, Redoc's standalone bundle (from the npm registry, served
 * from here: nothing from a CDN) rendering GET /api/v1/openapi.json.
 *
 * The bundle writes its styles with styled-components, which inserts <style> elements at run
 * time; Chromium refuses them under `style-src 'self'` and the page renders unstyled. So this one
 * page allows inline styles, and nothing else beyond the shared policy: scripts, data, fonts and
 * images still come from 'self' only (no host is named anywhere). Search runs in a worker Redoc
 * builds from a blob: URL of its own bundle, so this page also allows `worker-src blob:` (a
 * worker cannot reach the page's DOM or cookies; scripts still load only from 'self').
 */
export const API_REFERENCE_CSP = `${CONTENT_SECURITY_POLICY.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")}; worker-src 'self' blob:`;

const require = createRequire(import.meta.url);

interface Bundle {
  version: string;
  identity: Buffer;
  gzip: Buffer;
}

const CDN_LOGO = 'src:"https://cdn.redoc.ly/redoc/logo-mini.svg"';

let bundle: Bundle | undefined;
/** Read and compressed on first use (1 MB; gzip takes ~60 ms once), not at every start-up. */
function redocBundle(): Bundle {
  if (!bundle) {
    // The sidebar's "API docs by Redocly" link shows a logo from cdn.redoc.ly. An empty src makes the
    // image fail without a request, and the component then hides it: nothing leaves for a CDN.
    const source = readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8');
    if (!source.includes(CDN_LOGO)) throw new Error('redoc bundle changed: check what it fetches from outside before serving it');
    const identity = Buffer.from(source.replace(CDN_LOGO, 'src:""'));
    bundle = { identity, gzip: gzipSync(identity, { level: 9 }), version: createHash('sha256').update(identity).digest('hex').slice(0, 12) };
  }
  return bundle;
}

/** GET /docs: the reference page, Redoc over the OpenAPI document, under its own content security policy. */
export const apiReferencePage: WebPage<unknown, 'public'> = {
  method: 'GET',
  url: '/docs',
  auth: 'public',
  // Route hooks run after the scope's security headers, so this page's policy replaces the shared one.
  onSend: async (_request, reply, payload) => {
    reply.header('content-security-policy', API_REFERENCE_CSP);
    return payload;
  },
  handler: async ({ reply }) => {
    const page = html`<html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>API reference – Dossier</title>
        <style>
          body { margin: 0; }
          .reference-bar { display: flex; gap: 1.5rem; align-items: center; padding: 0.6rem 1.25rem; background: #0b0c0c; color: #fff; font: 16px/1.4 system-ui, sans-serif; }
          .reference-bar a { color: #fff; text-underline-offset: 0.15em; }
          .reference-bar a:focus-visible { outline: 3px solid #ffdd00; outline-offset: 2px; }
          .reference-bar strong { font-weight: 700; margin-right: auto; }
        </style>
        <script src=${`/docs/redoc.standalone.js?v=${redocBundle().version}`} defer></script>
      </head>
      <body>
        <header class="reference-bar">
          <strong>Dossier API reference</strong>
          <a href="/dashboard">Back to the dashboard</a>
          <a href="/api/v1/openapi.json">OpenAPI JSON</a>
        </header>
        <noscript><p>The API reference needs JavaScript. The same description is at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p></noscript>
        <redoc spec-url="/api/v1/openapi.json" hide-download-button="false" native-scrollbars="true" scroll-y-offset="0" sort-tags-alphabetically="false"></redoc>
      </body>
    </html>`;
    return sendPage(reply, page);
  },
};

const bundleQuery = z.object({ v: queryText });

/** GET /docs/redoc.standalone.js: the Redoc bundle, cached for good under its version (`?v=`), compressed when asked. */
export const redocBundlePage: WebPage<unknown, 'public', unknown, z.infer<typeof bundleQuery>> = {
  method: 'GET',
  url: '/docs/redoc.standalone.js',
  auth: 'public',
  query: bundleQuery,
  handler: async ({ request, reply, query }) => {
    const b = redocBundle();
    reply
      .type('text/javascript; charset=utf-8')
      .header('vary', 'accept-encoding')
      .header('cache-control', query.v === b.version ? 'public, max-age=31536000, immutable' : 'no-cache')
      .header('etag', `"${b.version}"`);
    if (request.headers['if-none-match'] === `"${b.version}"`) return reply.code(304).send();
    if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) return reply.header('content-encoding', 'gzip').send(b.gzip);
    return reply.send(b.identity);
  },
};

/** The API reference and its bundle, on the web scope beside the faces (the reference is public, outside /dashboard). */
export const apiReferencePages = [apiReferencePage, redocBundlePage];
