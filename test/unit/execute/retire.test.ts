/** Retiring an environment: the answer goes to the Runtime API, then the process ends. */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { canRetire, postResponse, respondAndExit } from '../../../functions/execute/environment/retire.ts';

const servers: ReturnType<typeof createServer>[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function runtimeApi(status: number): Promise<{ address: string; received: Promise<{ url: string; body: string }> }> {
  let resolve!: (r: { url: string; body: string }) => void;
  const received = new Promise<{ url: string; body: string }>((r) => (resolve = r));
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      res.writeHead(status).end('{}');
      resolve({ url: `${req.method} ${req.url}`, body });
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { address: `127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

describe('retiring an execution environment', () => {
  it('is possible only under a Runtime API, for a known request', () => {
    expect(canRetire({ runtimeApi: '127.0.0.1:9001', requestId: 'r-1' })).toBe(true);
    expect(canRetire({ runtimeApi: undefined, requestId: 'r-1' })).toBe(false);
    expect(canRetire({ runtimeApi: '127.0.0.1:9001', requestId: undefined })).toBe(false);
  });

  it('posts the response for the invocation, then exits 0', async () => {
    const api = await runtimeApi(202);
    let code: number | undefined;
    const exit = ((c: number) => {
      code = c;
      return undefined as never;
    }) as (c: number) => never;
    await respondAndExit({ runtimeApi: api.address, requestId: 'req/1' }, { status: 'ok' }, exit);
    expect(await api.received).toEqual({ url: 'POST /2018-06-01/runtime/invocation/req%2F1/response', body: '{"status":"ok"}' });
    expect(code).toBe(0);
  });

  it('exits 1 when the Runtime API refused the answer, and still exits when it is gone', async () => {
    const api = await runtimeApi(400);
    const codes: number[] = [];
    const exit = ((c: number) => {
      codes.push(c);
      return undefined as never;
    }) as (c: number) => never;
    await respondAndExit({ runtimeApi: api.address, requestId: 'r' }, {}, exit);
    await respondAndExit({ runtimeApi: '127.0.0.1:1', requestId: 'r' }, {}, exit);
    expect(codes).toEqual([1, 1]);
    expect(await postResponse(api.address, 'x', {})).toBe(400);
  });
});
