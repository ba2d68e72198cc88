/**
 * The session store in AWS: one object per session, `<tenant>/<session>.json` in the session bucket
 * (JUBE_R_SESSION_BUCKET, its own bucket, so no data pointer can ever name a snapshot), the body the
 * snapshot's base64 and the call number in the object's metadata; LastModified is the session's
 * last use. The bucket's lifecycle rule deletes what nobody reads again (infra/lib/session-store.ts).
 */
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { sessionObjectKey, type SessionStore } from './store.ts';

const CALL_METADATA = 'jube-call';

const isMissing = (error: unknown): boolean => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
};

export function createS3SessionStore(bucket: string, client: S3Client = new S3Client({})): SessionStore {
  return {
    async get(tenant, session) {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: sessionObjectKey(tenant, session) }));
        const call = Number(object.Metadata?.[CALL_METADATA]);
        if (!Number.isInteger(call) || call < 0 || !object.Body) return undefined;
        return { call, snapshot: await object.Body.transformToString('utf8'), writtenAt: object.LastModified?.getTime() ?? 0 };
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async put(tenant, session, stored) {
      await client.send(new PutObjectCommand({
        Bucket: bucket,
        Key: sessionObjectKey(tenant, session),
        Body: stored.snapshot,
        ContentType: 'text/plain',
        Metadata: { [CALL_METADATA]: String(stored.call) },
      }));
    },
    async delete(tenant, session) {
      const Key = sessionObjectKey(tenant, session);
      try {
        await client.send(new HeadObjectCommand({ Bucket: bucket, Key }));
      } catch (error) {
        if (isMissing(error)) return false;
        throw error;
      }
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key }));
      return true;
    },
  };
}
