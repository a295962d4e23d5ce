import type { S3Client } from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import type { DocumentStoreConfig } from '../config.ts';

export interface StoredObject {
  key: string;
  lastModified: Date;
}

/** The few S3 operations the document store uses, on one bucket; keys are full keys (prefix included). */
export interface ObjectBucket {
  put(key: string, body: Readable, length: number): Promise<void>;
  /** The object as a stream, or undefined when there is no such object. Throws when the store cannot be reached. */
  get(key: string): Promise<{ body: Readable; length: number } | undefined>;
  delete(keys: readonly string[]): Promise<void>;
  /** One page of keys under `prefix`, after `startAfter`, in key order. */
  list(prefix: string, options?: { startAfter?: string; max?: number }): Promise<{ objects: StoredObject[]; more: boolean }>;
  close(): void;
}

type S3Config = Extract<DocumentStoreConfig, { kind: 's3' }>;

/**
 * A bucket through @aws-sdk/client-s3. An endpoint (MinIO, R2, Ceph RGW, the tests' s3rver) gets
 * path-style addressing, which all of them accept. Checksums are sent only where S3 requires them:
 * the SDK's default streams a body with aws-chunked framing and a trailing checksum, which several
 * S3-compatible servers store verbatim; our own GCM tags already detect any corruption.
 */
export function createObjectBucket(config: S3Config): ObjectBucket {
  // The SDK is loaded on first use (~350 ms of imports on a loaded machine): a deployment without
  // a bucket, and every CLI command that touches no document, never pays for it.
  let loaded: Promise<{ sdk: typeof import('@aws-sdk/client-s3'); client: S3Client }> | undefined;
  const s3 = () =>
    (loaded ??= import('@aws-sdk/client-s3').then((sdk) => ({
      sdk,
      client: new sdk.S3Client({
        region: config.region,
        ...(config.endpoint ? { endpoint: config.endpoint, forcePathStyle: true } : {}),
        ...(config.credentials ? { credentials: config.credentials } : {}),
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        // A store that does not answer fails the request in seconds: an upload then tells the
        // applicant to try again, and a processing job is retried later.
        requestHandler: { connectionTimeout: 3_000, requestTimeout: 60_000 },
        maxAttempts: 2,
      }),
    })));
  const Bucket = config.bucket;
  return {
    async put(key, body, length) {
      const { sdk, client } = await s3();
      await client.send(new sdk.PutObjectCommand({ Bucket, Key: key, Body: body, ContentLength: length, ContentType: 'application/octet-stream' }));
    },
    async get(key) {
      const { sdk, client } = await s3();
      try {
        const answer = await client.send(new sdk.GetObjectCommand({ Bucket, Key: key }));
        return { body: answer.Body as Readable, length: answer.ContentLength ?? 0 };
      } catch (err) {
        if (err instanceof sdk.S3ServiceException && (err.name === 'NoSuchKey' || err.$metadata.httpStatusCode === 404)) return undefined;
        throw err;
      }
    },
    async delete(keys) {
      const { sdk, client } = await s3();
      for (let i = 0; i < keys.length; i += 1000) {
        const batch = keys.slice(i, i + 1000);
        await client.send(new sdk.DeleteObjectsCommand({ Bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }));
      }
    },
    async list(prefix, options = {}) {
      const { sdk, client } = await s3();
      const answer = await client.send(
        new sdk.ListObjectsV2Command({ Bucket, Prefix: prefix, MaxKeys: options.max ?? 1000, ...(options.startAfter ? { StartAfter: options.startAfter } : {}) }),
      );
      const objects = (answer.Contents ?? []).map((o) => ({ key: o.Key!, lastModified: o.LastModified ?? new Date(0) }));
      return { objects, more: answer.IsTruncated === true };
    },
    close() {
      void loaded?.then(({ client }) => client.destroy());
    },
  };
}
