/**
 * `jube-r mcp` with an MCP client from the same SDK, against real R: in-process (the local stack's
 * handlers in this process, the client on an in-memory transport), over stdio (`node
 * scripts/jube-r.mjs mcp --local` spawned as a host would) and over Streamable HTTP (two MCP
 * sessions, two X-Jube-Session values).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HealthResponse } from '../../layers/contract/api.ts';
import { McpExecuteResultSchema, type McpExecuteResult } from '../../functions/tools/mcp/content.ts';
import { createJubeRClient } from '../../functions/tools/client/jube-r-client.ts';
import { parseMcpArguments } from '../../functions/tools/mcp/arguments.ts';
import { startMcpHttpServer } from '../../functions/tools/mcp/http.ts';
import { createJubeRMcpServer } from '../../functions/tools/mcp/server.ts';
import { newSessionId } from '../../functions/tools/mcp/session.ts';
import { openTarget, type OpenTarget } from '../../functions/tools/mcp/target.ts';
import { REPO } from './local-stack.ts';

const GGPLOT = 'library(ggplot2)\nprint(ggplot(mtcars, aes(wt, mpg)) + geom_point())';

/** Width and height from a PNG's IHDR chunk, after checking the signature. */
function pngSize(base64: string): { width: number; height: number } {
  const bytes = Buffer.from(base64, 'base64');
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(bytes.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;
const firstText = (result: CallToolResult): string => {
  const item = result.content.find((c) => c.type === 'text');
  return item?.type === 'text' ? item.text : '';
};

let target: OpenTarget;
let sessionDir: string | undefined;
let health: HealthResponse;

beforeAll(async () => {
  // The local stack's loggers read their level from this process's environment.
  process.env['POWERTOOLS_LOG_LEVEL'] ??= 'WARN';
  // Sessions' workspaces go to a directory of this test's, not the working directory's default.
  sessionDir = await mkdtemp(path.join(tmpdir(), 'jube-mcp-sessions-'));
  process.env['JUBE_R_SESSION_DIR'] = sessionDir;
  target = await openTarget(parseMcpArguments(['--local'], {}), process.env);
  health = await target.api.health();
});
afterAll(async () => {
  await target?.close();
  if (sessionDir) await rm(sessionDir, { recursive: true, force: true });
});

describe('in-process, on the local stack\'s handlers', () => {
  let client: Client;
  beforeAll(async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createJubeRMcpServer({ api: target.api, session: newSessionId(), health }).connect(serverSide);
    client = new Client({ name: 'mcp-integration', version: '0' });
    await client.connect(clientSide);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('answers tools/list, r_health and a plot in bytes a model can take (printed for the record)', async () => {
    const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
    const list = bytes(await client.listTools());
    const healthResult = await call(client, 'r_health', {});
    const plot = await call(client, 'r_execute', { script: GGPLOT, plots: { width: 320, height: 200 } });
    const sizes = { toolsList: list, rHealthContent: bytes(healthResult.content), rHealthStructured: bytes(healthResult.structuredContent), plotContent: bytes(plot.content), plotStructured: bytes(plot.structuredContent) };
    console.log(`MCP bytes: ${JSON.stringify(sizes)}`);
    expect(sizes.plotStructured).toBeLessThan(4 * 1024);
    expect(sizes.rHealthContent).toBeLessThan(4 * 1024);
    expect(sizes.toolsList).toBeLessThan(16 * 1024);
  });

  it('lists the tools, with the limits /health reported in r_execute\'s description', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['r_execute', 'r_health', 'r_help', 'r_packages', 'r_session_end', 'r_validate']);
    const execute = tools.find((t) => t.name === 'r_execute')!;
    expect(execute.description).toContain('Call r_validate first');
    expect(execute.description).toContain(`clamped to at most ${health.limits.scriptTimeoutSecondsMax}`);
    expect(execute.description).toContain(`at most ${health.limits.maxPlots} plots`);
  });

  it('validates: a valid script, and an invalid one with its codes and places', async () => {
    const valid = await call(client, 'r_validate', { script: 'x <- 1:3\nmean(x)' });
    expect(valid.isError).toBeUndefined();
    expect(firstText(valid)).toMatch(/^valid/);
    const invalid = await call(client, 'r_validate', { script: 'x <- 1\nsystem("id")' });
    expect(invalid.structuredContent).toMatchObject({ valid: false, errors: [expect.objectContaining({ code: 'CAPABILITY_NOT_AVAILABLE', line: 2 })] });
    expect(firstText(invalid)).toContain('2:1 CAPABILITY_NOT_AVAILABLE');
  });

  it('executes a ggplot: the value as text, the plot as a PNG image of the requested size', async () => {
    const result = await call(client, 'r_execute', { script: `${GGPLOT}\nsqrt(16)`, plots: { width: 320, height: 200 } });
    expect(result.isError).toBeUndefined();
    expect(result.content.filter((c) => c.type === 'text').map((c) => (c.type === 'text' ? c.text : ''))).toContain('value (numeric):\n4');
    const images = result.content.filter((c) => c.type === 'image');
    expect(images).toHaveLength(1);
    expect(images[0]).toMatchObject({ mimeType: 'image/png' });
    expect(pngSize(images[0]!.type === 'image' ? images[0]!.data : '')).toEqual({ width: 320, height: 200 });
    // structuredContent names the image's content item instead of repeating its bytes.
    const structured = McpExecuteResultSchema.parse(result.structuredContent);
    expect(structured).toMatchObject({ status: 'ok', plots: [{ width: 320, height: 200, content: result.content.indexOf(images[0]!) }] });
    expect(JSON.stringify(structured)).not.toContain(images[0]!.type === 'image' ? images[0]!.data.slice(0, 64) : 'x');
  });

  it('returns a file from out/ as an embedded resource', async () => {
    const result = await call(client, 'r_execute', { script: 'write.csv(data.frame(a = n), "out/t.csv", row.names = FALSE)', variables: [{ name: 'n', value: [1, 2] }] });
    expect(result.content).toContainEqual({ type: 'resource', resource: { uri: 'jube-r://out/t.csv', mimeType: 'text/csv', text: '"a"\n1\n2\n' } });
  });

  it('gives a failing script as a tool error with the cause, line and hints first', async () => {
    const result = await call(client, 'r_execute', { script: 'x <- 1\nstop("the input has no rows")' });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(/^Error: the input has no rows\nAt line 2: stop/);
    const hinted = await call(client, 'r_execute', { script: 'd <- data.frame(mpg = 1:3)\ndplyr::select(d, mpgg)' });
    expect(firstText(hinted)).toMatch(/^Error[^\n]*mpgg[^\n]*\n(?:[^\n]*\n)*At line 2: [^\n]*\nHint: [^\n]*`mpg`/);
    expect(result.structuredContent).toMatchObject({ status: 'error', errorType: 'execution' });
  });

  it('shows a rejection with its codes, as a tool error', async () => {
    const result = await call(client, 'r_execute', { script: 'Sys.setenv(A = "1")\nsystem("id")' });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(/^rejected: the script was not run/);
    expect(firstText(result)).toContain('2:1 CAPABILITY_NOT_AVAILABLE');
    expect(result.structuredContent).toMatchObject({ status: 'rejected', validation: { valid: false } });
  });

  it('shows a request the API refuses (400) with the field and the bound', async () => {
    const result = await call(client, 'r_execute', { script: '1', plots: { width: 10 } });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(/plots\.width/);
  });

  it('reports the health and the packages', async () => {
    expect(firstText(await call(client, 'r_health', {}))).toContain(`R ${health.rVersion}`);
    expect(firstText(await call(client, 'r_packages', {}))).toMatch(/\nggplot2 \d/);
  });

  it('shows an installed function\'s help page, and the nearest topics for one that does not exist', async () => {
    const page = await call(client, 'r_help', { topic: 'mutate', package: 'dplyr' });
    expect(page.isError).toBeFalsy();
    expect(firstText(page)).toMatch(/mutate\(\.data, \.\.\.\)/);
    const miss = await call(client, 'r_help', { topic: 'mutatee' });
    expect(miss.isError).toBe(true);
    expect(firstText(miss)).toContain('mutate');
  });
});

describe('over stdio: jube-r mcp --local, spawned as a host spawns it', () => {
  let client: Client;
  let stderr = '';
  beforeAll(async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.join(REPO, 'scripts/jube-r.mjs'), 'mcp', '--local'],
      cwd: REPO,
      env: { ...(process.env as Record<string, string>) },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    client = new Client({ name: 'mcp-stdio', version: '0' });
    await client.connect(transport);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('lists the tools, executes a ggplot into an image, and gives an error as isError with its cause', async () => {
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('r_execute');
    const plotted = await call(client, 'r_execute', { script: GGPLOT, plots: { width: 256, height: 128 } });
    const image = plotted.content.find((c) => c.type === 'image');
    expect(image?.type === 'image' && pngSize(image.data)).toEqual({ width: 256, height: 128 });
    const failed = await call(client, 'r_execute', { script: 'log(-1)\nstop("no such column: mpgg")' });
    expect(failed.isError).toBe(true);
    expect(firstText(failed)).toContain('no such column: mpgg');
    // One process is one session, named on stderr (stdout is the protocol's alone).
    expect(stderr).toMatch(/jube-r mcp: stdio, session [0-9a-f-]{36}/);
  });
});

describe('over Streamable HTTP: an MCP session is an X-Jube-Session', () => {
  it('gives two MCP sessions two session values and two workspaces; r_session_end empties its own', async () => {
    const seen: string[] = [];
    const api = createJubeRClient({
      baseUrl: target.url,
      tenant: 'acme',
      fetch: (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
        const session = new Headers(init?.headers).get('x-jube-session');
        if (session !== null) seen.push(session);
        return fetch(input, init);
      }) as typeof fetch,
    });
    const http = await startMcpHttpServer({ host: '127.0.0.1', port: 0, maxSessions: 4, serverFor: (session) => createJubeRMcpServer({ api, session, health }) });
    try {
      const sessions: string[] = [];
      for (const name of ['a', 'b']) {
        const transport = new StreamableHTTPClientTransport(new URL(http.url));
        const client = new Client({ name, version: '0' });
        await client.connect(transport);
        const made = await call(client, 'r_execute', { script: `x <- "${name}"` });
        expect(made.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n')).toMatch(/session call 1 \(started with an empty workspace\); workspace now: x \(character\)/);
        // Each session sees its own x: the other session's call in between changed nothing here.
        const seenX = await call(client, 'r_execute', { script: 'x' });
        expect((seenX.structuredContent as McpExecuteResult).value).toMatchObject({ kind: 'json', json: name });
        expect((seenX.structuredContent as McpExecuteResult).session).toMatchObject({ call: 2, state: 'restored' });
        expect((await call(client, 'r_session_end', {})).structuredContent).toEqual({ session: transport.sessionId, deleted: true });
        const after = await call(client, 'r_execute', { script: 'exists("x")' });
        expect((after.structuredContent as McpExecuteResult).value).toMatchObject({ kind: 'json', json: false });
        sessions.push(transport.sessionId!);
        await client.close();
      }
      expect(new Set(sessions).size).toBe(2);
      expect(seen).toEqual([...Array(4).fill(sessions[0]), ...Array(4).fill(sessions[1])]);
    } finally {
      await http.close();
    }
  });
});
