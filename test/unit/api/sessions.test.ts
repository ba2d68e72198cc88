/**
 * Sessions at the API (docs/sessions.md), the Lambda and S3 SDKs mocked at their boundary: the
 * store's snapshot goes with the invoke and the one the execute function returns is stored, never
 * passed to the caller; a store that fails costs only this call's workspace; an idle session is
 * dropped; `isolation: run` keeps none; the S3 store's wire calls; the payload bound in the config.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, readServiceConfig } from '../../../layers/config/service-config.ts';
import type { ExecutePayload } from '../../../layers/contract/execute.ts';
import { createApi } from '../../../functions/api/create-api.ts';
import { createS3SessionStore } from '../../../functions/api/sessions/s3-store.ts';
import type { SessionStore, StoredSession } from '../../../functions/api/sessions/store.ts';
import { context, jsonPost, proxyEvent } from './events.ts';

const lambda = mockClient(LambdaClient);
const silent = new Logger({ serviceName: 'jube-r-test', logLevel: 'SILENT' });
const answered = (call: number): ExecutePayload => ({
  status: 'ok', consoleOutput: '', error: null, warnings: [], durationMs: 1, timedOut: false, rVersion: '4.5.0', timestamp: '2026-01-01T00:00:00.000Z',
  session: { id: 's1', call, state: 'restored', objects: [{ name: 'd', class: 'data.frame', bytes: 100 }] },
  sessionSnapshot: 'U05BUFNIT1Q=',
});

/** A store in memory; `failPut` makes every write fail. */
function memoryStore(initial: Record<string, StoredSession> = {}, failPut = false): SessionStore & { saved: Map<string, StoredSession> } {
  const saved = new Map(Object.entries(initial));
  return {
    saved,
    get: async (tenant, session) => saved.get(`${tenant}/${session}`),
    put: async (tenant, session, stored) => {
      if (failPut) throw new Error('store down');
      saved.set(`${tenant}/${session}`, { ...stored, writtenAt: Date.now() });
    },
    delete: async (tenant, session) => saved.delete(`${tenant}/${session}`),
  };
}

function makeApi(store: SessionStore, env: Record<string, string> = {}) {
  const full = { JUBE_R_LAMBDA_ENDPOINT: 'http://127.0.0.1:9', ...env };
  return createApi({ env: full, config: readServiceConfig(full), logger: silent, sessions: async () => store });
}
const sentEvents = () => lambda.commandCalls(InvokeCommand).map((c) => JSON.parse(Buffer.from(c.args[0].input.Payload as Uint8Array).toString('utf8')) as Record<string, unknown>);
async function execute(api: ReturnType<typeof makeApi>, session?: string) {
  const result = await api.handler(jsonPost('/t/acme/execute', { script: 'd$mpg' }, session ? { 'X-Jube-Session': session } : {}), context());
  return JSON.parse(result.body) as Record<string, unknown>;
}

beforeEach(() => lambda.reset());
afterEach(() => lambda.reset());

describe('POST /t/{tenant}/execute with X-Jube-Session', () => {
  it("sends the store's snapshot and call, stores the one that comes back, and never answers with it", async () => {
    const store = memoryStore({ 'acme/s1': { call: 1, snapshot: 'T0xE', writtenAt: Date.now() } });
    lambda.on(InvokeCommand).resolves({ StatusCode: 200, Payload: new Uint8Array(Buffer.from(JSON.stringify(answered(2)))) as never });
    const body = await execute(makeApi(store), 's1');
    expect(sentEvents()[0]!['session']).toEqual({ id: 's1', call: 1, snapshot: 'T0xE' });
    expect(body['sessionSnapshot']).toBeUndefined();
    expect(body['session']).toMatchObject({ id: 's1', call: 2, state: 'restored' });
    expect(store.saved.get('acme/s1')).toMatchObject({ call: 2, snapshot: 'U05BUFNIT1Q=' });
  });

  it('a store that refuses the write: the call is answered, its workspace not kept, and the session stays at its last call', async () => {
    const store = memoryStore({ 'acme/s1': { call: 1, snapshot: 'T0xE', writtenAt: Date.now() } }, true);
    lambda.on(InvokeCommand).resolves({ StatusCode: 200, Payload: new Uint8Array(Buffer.from(JSON.stringify(answered(2)))) as never });
    const body = await execute(makeApi(store), 's1');
    expect(body['session']).toMatchObject({ call: 1 });
    expect((body['notes'] as string[]).join('\n')).toMatch(/not kept \(the session store failed\); the session's next call gets the workspace of call 1/);
  });

  it('an idle session is deleted and its call starts new; the event says it expired', async () => {
    const store = memoryStore({ 'acme/s1': { call: 4, snapshot: 'T0xE', writtenAt: Date.now() - 3_600_000 } });
    lambda.on(InvokeCommand).resolves({ StatusCode: 200, Payload: new Uint8Array(Buffer.from(JSON.stringify(answered(1)))) as never });
    await execute(makeApi(store, { JUBE_R_SESSION_IDLE_SECONDS: '1800' }), 's1');
    expect(sentEvents()[0]!['session']).toEqual({ id: 's1', call: 0, expired: true });
  });

  it('a stored snapshot over a cap lowered since is not sent: the call starts empty, and the API says why', async () => {
    const store = memoryStore({ 'acme/s1': { call: 3, snapshot: 'A'.repeat(200 * 1024), writtenAt: Date.now() } });
    lambda.on(InvokeCommand).resolves({ StatusCode: 200, Payload: new Uint8Array(Buffer.from(JSON.stringify(answered(4)))) as never });
    await execute(makeApi(store, { JUBE_R_MAX_SESSION_BYTES: String(64 * 1024) }), 's1');
    const [event] = sentEvents();
    expect(event!['session']).toEqual({ id: 's1', call: 3 });
    expect(event!['notes']).toEqual([expect.stringMatching(/larger than this deployment's limits\.maxSessionBytes now/)]);
  });

  it('isolation: run keeps no session, and says so; no header, no session', async () => {
    const store = memoryStore({ 'acme/s1': { call: 1, snapshot: 'T0xE', writtenAt: Date.now() } });
    lambda.on(InvokeCommand).resolves({ StatusCode: 200, Payload: new Uint8Array(Buffer.from(JSON.stringify({ ...answered(0), session: undefined, sessionSnapshot: undefined }))) as never });
    await execute(makeApi(store, { JUBE_R_ISOLATION: 'run' }), 's1');
    await execute(makeApi(store), undefined);
    const [run, none] = sentEvents();
    expect(run!['session']).toBeUndefined();
    expect(run!['notes']).toEqual([expect.stringMatching(/keeps no workspace on this deployment \(isolation: run/)]);
    expect(none!['session']).toBeUndefined();
  });
});

describe('DELETE /t/{tenant}/session', () => {
  it("deletes the session's snapshot, in the caller's tenant only", async () => {
    const store = memoryStore({ 'acme/s1': { call: 1, snapshot: 'T0xE', writtenAt: Date.now() }, 'other/s1': { call: 1, snapshot: 'T0xE', writtenAt: Date.now() } });
    const result = await makeApi(store).handler(proxyEvent('DELETE', '/t/acme/session', { headers: { 'X-Jube-Session': 's1' } }), context());
    expect([result.statusCode, JSON.parse(result.body)]).toEqual([200, { session: 's1', deleted: true }]);
    expect([...store.saved.keys()]).toEqual(['other/s1']);
  });
});

describe('the S3 session store', () => {
  const s3 = mockClient(S3Client);
  beforeEach(() => s3.reset());
  // The SDK's stream body, as far as the store reads it.
  const body = (text: string) => ({ transformToString: async () => text });

  it('reads the call from the metadata and the last use from LastModified; a missing object is no session', async () => {
    s3.on(GetObjectCommand, { Bucket: 'sessions', Key: 'acme/s1.json' }).resolves({ Body: body('T0xE') as never, Metadata: { 'jube-call': '3' }, LastModified: new Date(1_000) });
    s3.on(GetObjectCommand, { Key: 'acme/none.json' }).rejects(Object.assign(new Error('no'), { name: 'NoSuchKey' }));
    const store = createS3SessionStore('sessions', new S3Client({}));
    expect(await store.get('acme', 's1')).toEqual({ call: 3, snapshot: 'T0xE', writtenAt: 1_000 });
    expect(await store.get('acme', 'none')).toBeUndefined();
  });

  it('writes the snapshot with its call in the metadata; deletes only what exists', async () => {
    s3.on(HeadObjectCommand, { Key: 'acme/none.json' }).rejects(Object.assign(new Error('no'), { name: 'NotFound' }));
    const store = createS3SessionStore('sessions', new S3Client({}));
    await store.put('acme', 's1', { call: 2, snapshot: 'T0xE' });
    expect(s3.commandCalls(PutObjectCommand)[0]!.args[0].input).toMatchObject({ Bucket: 'sessions', Key: 'acme/s1.json', Body: 'T0xE', Metadata: { 'jube-call': '2' } });
    expect(await store.delete('acme', 's1')).toBe(true);
    expect(await store.delete('acme', 'none')).toBe(false);
    expect(s3.commandCalls(DeleteObjectCommand).map((c) => c.args[0].input.Key)).toEqual(['acme/s1.json']);
  });
});

describe('the payload bound', () => {
  it("refuses a request body and a session snapshot that would not fit one invoke's payload", () => {
    expect(() => readServiceConfig({ JUBE_R_MAX_REQUEST_BODY_BYTES: String(4 * 1024 * 1024), JUBE_R_MAX_SESSION_BYTES: String(2 * 1024 * 1024) })).toThrow(ConfigError);
    expect(readServiceConfig({ JUBE_R_MAX_REQUEST_BODY_BYTES: String(2 * 1024 * 1024), JUBE_R_MAX_SESSION_BYTES: String(2 * 1024 * 1024) }).sessions.maxBytes).toBe(2 * 1024 * 1024);
  });
});
