/**
 * The stray-listener check with real sockets: a listener held by the handler's chain (this test
 * process) is its own, one held by a child is stray, and the Runtime API's port is the platform's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ancestry } from '../../../functions/execute/environment/hygiene.ts';
import { parseTcpListeners, strayListeners } from '../../../functions/execute/environment/listeners.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function listenHere(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => server.close());
  return (server.address() as { port: number }).port;
}

async function listenInChild(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['-e', 'const s = require("net").createServer().listen(0, "127.0.0.1", () => console.log(s.address().port))'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  cleanups.push(() => child.kill('SIGKILL'));
  const port = await new Promise<number>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
  return { child, port };
}

describe('parseTcpListeners', () => {
  it('keeps LISTEN rows only, with the port in decimal and the inode', () => {
    const table = [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 0100007F:2329 00000000:0000 0A 00000000:00000000 00:00000000 00000000   993        0 4242 1 0000000000000000 100 0 0 10 0',
      '   1: 0100007F:2329 0100007F:D431 01 00000000:00000000 00:00000000 00000000   993        0 4343 1 0000000000000000 20 4 30 10 -1',
    ].join('\n');
    expect(parseTcpListeners(table)).toEqual([{ address: '0100007F', port: 9001, inode: 4242, uid: 993 }]);
  });
});

describe('strayListeners', () => {
  it("finds a child's listener, not the chain's own, and never the Runtime API's port", async () => {
    // Prepare
    const own = await listenHere();
    const { port: stray } = await listenInChild();
    const { port: api } = await listenInChild();
    const keep = await ancestry();
    // Act
    const found = (await strayListeners(keep, `127.0.0.1:${api}`)).map((l) => l.port);
    // Assess
    expect(found).toContain(stray);
    expect(found).not.toContain(own);
    expect(found).not.toContain(api);
    // Another user's listener is not a run's (the platform's servers in Lambda).
    expect((await strayListeners(keep, undefined, (process.getuid?.() ?? 0) + 12345)).map((l) => l.port)).toEqual([]);
  });
});
