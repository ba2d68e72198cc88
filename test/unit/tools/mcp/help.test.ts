/**
 * r_help over GET /help through the real client and MCP server, the HTTP answers given by a fetch
 * (the route's contract: 200 with topic, package, text; 404 with `suggestions` for an unknown topic).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createJubeRClient } from '../../../../functions/tools/client/jube-r-client.ts';
import { createJubeRMcpServer } from '../../../../functions/tools/mcp/server.ts';

async function helpWith(status: number, body: unknown, args: Record<string, unknown>) {
  const urls: string[] = [];
  const api = createJubeRClient({
    baseUrl: 'http://127.0.0.1:1/',
    fetch: (async (url: URL | string) => {
      urls.push(String(url));
      return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    }) as typeof fetch,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createJubeRMcpServer({ api, session: 's', health: undefined }).connect(serverSide);
  const client = new Client({ name: 'help-test', version: '0' });
  await client.connect(clientSide);
  const result = (await client.callTool({ name: 'r_help', arguments: args })) as CallToolResult;
  await client.close();
  return { result, urls };
}

describe('r_help', () => {
  it('asks GET /help with the topic and package as its query and shows the page', async () => {
    const page = { topic: 'mutate', package: 'dplyr', text: 'Usage:\n  mutate(.data, ...)' };
    const { result, urls } = await helpWith(200, page, { topic: 'mutate', package: 'dplyr' });
    expect(urls).toEqual(['http://127.0.0.1:1/help?topic=mutate&package=dplyr']);
    expect(result.content).toEqual([{ type: 'text', text: 'dplyr::mutate\n\nUsage:\n  mutate(.data, ...)' }]);
    expect(result.structuredContent).toEqual(page);
  });

  it('names the nearest topics of an unknown one', async () => {
    const { result } = await helpWith(404, { code: 'NOT_FOUND', message: 'no topic mutat', requestId: 'r', suggestions: ['mutate', 'mutate_all'] }, { topic: 'mutat' });
    expect(result.isError).toBe(true);
    // The status line is the client's (with the code once the error body names `suggestions`).
    expect(result.content[0]).toMatchObject({ text: expect.stringMatching(/^404\b.*no topic mutat\nnearest installed topics: mutate, mutate_all$/) });
  });

  it('says so when the API has no /help at all', async () => {
    const { result } = await helpWith(404, { code: 'NOT_FOUND', message: 'no route /help', requestId: 'r' }, { topic: 'mean' });
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({ text: expect.stringMatching(/^404 NOT_FOUND: no route \/help\n/) });
  });
});
