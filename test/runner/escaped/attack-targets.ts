/**
 * What an escaped script's attacks aim at, watched by the test: a directory where a command that
 * ran would leave its mark (outside every workdir), a loopback listener that counts connections,
 * and a sleeping process a signal would end. Registers its own set-up and tear-down.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

export interface AttackTargets {
  readonly marks: string;
  /** The listener's port and the connections it has had (both read after set-up). */
  readonly port: number;
  readonly connections: number;
  readonly sleeperPid: number;
}

export function attackTargets(prefix: string, sleepSeconds = 600): AttackTargets {
  const marks = mkdtempSync(join(tmpdir(), prefix));
  let server: Server | undefined;
  let port = 0;
  let connections = 0;
  let sleeper: ChildProcess | undefined;
  beforeAll(async () => {
    server = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
    sleeper = spawn('sleep', [String(sleepSeconds)], { stdio: 'ignore' });
  });
  afterAll(() => {
    server?.close();
    sleeper?.kill('SIGKILL');
    rmSync(marks, { recursive: true, force: true });
  });
  return {
    marks,
    get port() {
      return port;
    },
    get connections() {
      return connections;
    },
    get sleeperPid() {
      return sleeper?.pid ?? 0;
    },
  };
}
