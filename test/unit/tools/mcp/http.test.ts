/** The Streamable HTTP endpoint's own answers, before any tool runs. */
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { JubeRClient } from '../../../../functions/tools/client/jube-r-client.ts';
import { hostName, startMcpHttpServer, type McpHttpServer } from '../../../../functions/tools/mcp/http.ts';
import { createJubeRMcpServer } from '../../../../functions/tools/mcp/server.ts';

const unreachable = new Proxy({}, { get: () => () => Promise.reject(new Error('unreachable')) }) as JubeRClient;
let server: McpHttpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const start = (maxSessions = 4) =>
  startMcpHttpServer({ host: '127.0.0.1', port: 0, maxSessions, serverFor: (session) => createJubeRMcpServer({ api: unreachable, session, health: undefined }) });

async function connect(url: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'http-test', version: '0' });
  await client.connect(transport);
  return { client, transport };
}

describe('the MCP endpoint over Streamable HTTP', () => {
  it('opens one session per initialize, and DELETE ends it', async () => {
    server = await start();
    const a = await connect(server.url);
    const b = await connect(server.url);
    expect(new Set(server.sessions())).toEqual(new Set([a.transport.sessionId, b.transport.sessionId]));
    await a.transport.terminateSession();
    expect(server.sessions()).toEqual([b.transport.sessionId]);
    await b.client.close();
  });

  it('refuses a session over the cap with 503, and an unknown session with 404', async () => {
    server = await start(1);
    const a = await connect(server.url);
    await expect(connect(server.url)).rejects.toThrow(/at most 1 MCP sessions at once/);
    const unknown = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'nope' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(unknown.status).toBe(404);
    await a.client.close();
  });

  it('answers only a loopback Host when bound to loopback, and nothing but /mcp', async () => {
    server = await start();
    const { port } = new URL(server.url);
    // fetch sets Host from the URL; a rebound name needs a raw request.
    const rebound = await new Promise<number>((resolve, reject) =>
      request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { host: `evil.example:${port}` } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      })
        .on('error', reject)
        .end('{}'),
    );
    expect(rebound).toBe(403);
    expect((await fetch(server.url.replace('/mcp', '/other'))).status).toBe(404);
    expect((await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) })).status).toBe(400);
    expect(server.sessions()).toEqual([]);
  });

  it('reads the name part of a Host header', () => {
    expect(hostName('127.0.0.1:8765')).toBe('127.0.0.1');
    expect(hostName('[::1]:1')).toBe('[::1]');
    expect(hostName('LocalHost')).toBe('localhost');
    expect(hostName(undefined)).toBe('');
  });
});
