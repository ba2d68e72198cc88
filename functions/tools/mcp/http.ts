/**
 * The MCP server over Streamable HTTP, at `/mcp`: each initialize request opens an MCP session with
 * its own server, whose session id (checked against X-Jube-Session's rule) is the jube-r session of
 * every /execute it makes, so one conversation keeps one environment and two never share one.
 * At most `maxSessions` sessions at once (each may hold a warm execution environment); a host ends
 * one with DELETE. Bound to a loopback address, only a loopback Host header is served, so a web
 * page cannot reach the server through DNS rebinding.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { newSessionId } from './session.ts';

export const MCP_PATH = '/mcp';

export interface McpHttpServerOptions {
  readonly host: string;
  readonly port: number;
  readonly maxSessions: number;
  /** Largest POST body read; undefined: the SDK's default (4 MiB). */
  readonly maxRequestBodyBytes?: number;
  /** A new MCP server for the session `session`. */
  readonly serverFor: (session: string) => McpServer;
}

export interface McpHttpServer {
  /** `http://host:port/mcp`. */
  readonly url: string;
  /** The sessions open now. */
  sessions(): string[];
  close(): Promise<void>;
}

interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: McpServer;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** The Host header's name part, for the loopback check ("127.0.0.1:8765" -> "127.0.0.1", "[::1]:1" -> "[::1]"). */
export const hostName = (header: string | undefined): string => (header ?? '').replace(/:\d+$/, '').toLowerCase();

export async function startMcpHttpServer(options: McpHttpServerOptions): Promise<McpHttpServer> {
  const sessions = new Map<string, Session>();
  const loopbackOnly = LOOPBACK.has(options.host);

  async function open(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (sessions.size >= options.maxSessions) {
      jsonRpcError(res, 503, -32000, `at most ${options.maxSessions} MCP sessions at once; end one (DELETE ${MCP_PATH}) or try later`);
      return;
    }
    const id = newSessionId();
    const server = options.serverFor(id);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      enableJsonResponse: true,
      ...(options.maxRequestBodyBytes === undefined ? {} : { maxRequestBodySize: options.maxRequestBodyBytes }),
      onsessioninitialized: (sid) => void sessions.set(sid, { transport, server }),
    });
    transport.onclose = () => void sessions.delete(id);
    await server.connect(transport);
    await transport.handleRequest(req, res);
    // Not an initialize request: the transport answered 400 and no session was opened.
    if (!sessions.has(id)) await server.close();
  }

  const http = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== MCP_PATH) {
      jsonRpcError(res, 404, -32601, `the MCP endpoint is ${MCP_PATH}`);
      return;
    }
    if (loopbackOnly && !LOOPBACK.has(hostName(req.headers.host))) {
      jsonRpcError(res, 403, -32000, 'this server answers only to a loopback Host');
      return;
    }
    const sid = req.headers['mcp-session-id'];
    const handled =
      typeof sid === 'string'
        ? sessions.get(sid)?.transport.handleRequest(req, res) ?? Promise.resolve(jsonRpcError(res, 404, -32001, 'unknown MCP session; initialize a new one'))
        : req.method === 'POST'
          ? open(req, res)
          : Promise.resolve(jsonRpcError(res, 400, -32000, 'no Mcp-Session-Id: POST an initialize request first'));
    handled.catch((error: unknown) => {
      process.stderr.write(`jube-r mcp: ${(error as Error).message}\n`);
      if (!res.headersSent) jsonRpcError(res, 500, -32603, 'internal error');
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;

  return {
    url: `http://${shownHost}:${port}${MCP_PATH}`,
    sessions: () => [...sessions.keys()],
    close: async () => {
      await Promise.all([...sessions.values()].map((s) => s.server.close()));
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}
