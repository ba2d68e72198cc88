/**
 * The plumbing both local HTTP servers (the API and the Lambda Invoke endpoint) share: bind,
 * report the URL, and shut down in two steps so in-flight requests can finish first.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ListeningServer {
  readonly url: string;
  readonly port: number;
  /** Stops accepting connections and closes idle ones; resolves once every connection has ended. */
  close(): Promise<void>;
  /** Ends every connection still open (after `close`, once nothing is in flight). */
  dropConnections(): void;
}

/** Binds `server` to host:port (0 picks a free port) and resolves once it accepts connections. */
export async function listen(server: Server, host: string, port: number): Promise<ListeningServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    // An IPv6 literal must be bracketed inside a URL.
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
    dropConnections: () => server.closeAllConnections(),
  };
}
