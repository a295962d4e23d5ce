import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, describe } from 'vitest';
import { randomBase62 } from '../../src/ports/ids.ts';
import { backends, type BackendKind } from './harness.ts';

export type StoreKind = 'database' | 's3';

/** A real S3-protocol server on loopback (s3rver, in this process), its objects as files in `directory`. */
export interface TestS3 {
  endpoint: string;
  bucket: string;
  directory: string;
  /** Environment for createTestApp that puts documents under a fresh prefix of the bucket. */
  env(prefix?: string): Record<string, string>;
  stop(): Promise<void>;
  /** Starts the server again on the same port and directory (after a fault test stopped it). */
  restart(): Promise<void>;
}

const BUCKET = 'dossier-test';
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export async function startTestS3(): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 'dossier-s3-'));
  let server = new S3rver({ port: 0, address: '127.0.0.1', directory, silent: true });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: CREDENTIALS });
  await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
  client.destroy();
  let running = true;
  return {
    endpoint,
    bucket: BUCKET,
    directory,
    env(prefix = `t${randomBase62(10)}`) {
      return {
        DOCUMENT_STORE: `s3://${BUCKET}/${prefix}`,
        S3_ENDPOINT: endpoint,
        S3_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
      };
    },
    async stop() {
      if (!running) return;
      running = false;
      await server.close();
    },
    async restart() {
      if (running) return;
      server = new S3rver({ port, address: '127.0.0.1', directory, silent: true });
      await server.run();
      running = true;
    },
  };
}

let shared: Promise<TestS3> | undefined;

/** The file's s3rver, started on first use; `stopTestS3` (an afterAll of the describe that used it) stops it. */
export function testS3(): Promise<TestS3> {
  shared ??= startTestS3();
  return shared;
}

export async function stopTestS3(): Promise<void> {
  if (!shared) return;
  const s3 = await shared;
  shared = undefined;
  await s3.stop();
  rmSync(s3.directory, { recursive: true, force: true });
}

/**
 * The document-store dimension of the contract tests: the database store on every database
 * backend, and the S3 store once, on PostgreSQL when it is reachable (the deployments that
 * outgrow one database run it) else PGlite. The full cross product would double these files'
 * run time and add nothing the two axes do not already cover: the store reaches the database
 * only through the blob row queries, which run on both backends in the database dimension.
 */
export function storeMatrix(): { backend: BackendKind; store: StoreKind }[] {
  const all = backends();
  return [...all.map((backend) => ({ backend, store: 'database' as const })), { backend: all.includes('postgres') ? 'postgres' : 'embedded', store: 's3' as const }];
}

/** `describe` once per backend and store, both in the title; `storeEnv()` gives createTestApp's environment for the store. */
export function describeEachStore(title: string, body: (backend: BackendKind, store: StoreKind, storeEnv: () => Promise<Record<string, string>>) => void): void {
  for (const { backend, store } of storeMatrix()) {
    describe(`${title} [${backend}, ${store} store]`, () => {
      if (store === 's3') afterAll(stopTestS3);
      body(backend, store, async () => (store === 's3' ? (await testS3()).env() : {}));
    });
  }
}
