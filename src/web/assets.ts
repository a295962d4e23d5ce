import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const ASSET_DIR = new URL('./assets/', import.meta.url).pathname;

/**
 * Stylesheets are served as one bundle per face: the shared design tokens and components first,
 * then the face's own rules. One request per page, and both faces draw on the same tokens.
 */
const BUNDLES: Record<string, readonly string[]> = {
  'app.css': ['tokens.css', 'components.css', 'app.css'],
  'dashboard.css': ['tokens.css', 'components.css', 'dashboard.css'],
};

const TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

interface Asset {
  type: string;
  version: string;
  identity: Buffer;
  gzip: Buffer;
  br: Buffer;
}

/**
 * Every asset, read once at start-up and compressed ahead of time (brotli at its highest quality
 * takes ~40 ms for all of them together, once), so serving one is a map lookup.
 */
export class AssetRegistry {
  readonly #assets = new Map<string, Asset>();

  constructor(dir = ASSET_DIR) {
    const files = new Map<string, Buffer>();
    const walk = (at: string) => {
      for (const entry of readdirSync(at, { withFileTypes: true })) {
        const path = join(at, entry.name);
        if (entry.isDirectory()) walk(path);
        else files.set(relative(dir, path).split('\\').join('/'), readFileSync(path));
      }
    };
    walk(dir);
    for (const [name, parts] of Object.entries(BUNDLES)) {
      files.set(name, Buffer.concat(parts.map((p) => {
        const part = files.get(p);
        if (!part) throw new Error(`stylesheet bundle ${name} needs ${p}, which is missing`);
        return Buffer.concat([part, Buffer.from('\n')]);
      })));
    }
    for (const [name, identity] of files) {
      const type = TYPES[extname(name)];
      if (!type) continue;
      this.#assets.set(name, {
        type,
        version: createHash('sha256').update(identity).digest('hex').slice(0, 12),
        identity,
        gzip: gzipSync(identity, { level: 9 }),
        br: brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
      });
    }
  }

  /** The address of an asset under a face's prefix, versioned by content so it can be cached for a year. */
  url(prefix: string, name: string): string {
    const asset = this.#assets.get(name);
    if (!asset) throw new Error(`unknown asset ${name}`);
    return `${prefix}/assets/${name}?v=${asset.version}`;
  }

  /** Bytes over the wire for an asset, compressed as a browser would ask for it (page-weight checks use it). */
  compressedSize(name: string): number {
    const asset = this.#assets.get(name);
    if (!asset) throw new Error(`unknown asset ${name}`);
    return asset.br.length;
  }

  /** Serves `{prefix}/assets/*` in the given scope. */
  register(scope: FastifyInstance): void {
    scope.get('/assets/*', { config: { auth: 'public' } }, (request, reply) => this.#serve(request, reply));
  }

  #serve(request: FastifyRequest, reply: FastifyReply) {
    const name = (request.params as { '*': string })['*'];
    const asset = this.#assets.get(name);
    if (!asset) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    const version = (request.query as { v?: string }).v;
    reply
      .type(asset.type)
      .header('vary', 'accept-encoding')
      .header('cache-control', version === asset.version ? 'public, max-age=31536000, immutable' : 'no-cache')
      .header('etag', `"${asset.version}"`);
    if (request.headers['if-none-match'] === `"${asset.version}"`) return reply.code(304).send();
    const accepts = String(request.headers['accept-encoding'] ?? '');
    if (/\bbr\b/.test(accepts)) return reply.header('content-encoding', 'br').send(asset.br);
    if (/\bgzip\b/.test(accepts)) return reply.header('content-encoding', 'gzip').send(asset.gzip);
    return reply.send(asset.identity);
  }
}
