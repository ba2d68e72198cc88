/**
 * Test helpers for the integration tier: start `jube-r serve` as a separate process, exactly as
 * `npm start` does, read the address it prints, and look for the R processes it started.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { processTable } from '../../functions/execute/run/process-group.ts';

export const REPO = path.resolve(import.meta.dirname, '../..');

export interface RunningStack {
  readonly url: string;
  readonly child: ChildProcess;
  /** Every R workdir is created under this directory, so its path marks this stack's R processes. */
  readonly tmpRoot: string;
  /** Milliseconds from spawn to the printed address. */
  readonly startMs: number;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `jube-r serve` by default; the README test starts the stack with the literal `npm start`. */
const SERVE: readonly string[] = [process.execPath, path.join(REPO, 'scripts/jube-r.mjs'), 'serve'];

export async function startStack(env: Record<string, string> = {}, command: readonly string[] = SERVE): Promise<RunningStack> {
  const tmpRoot = await mkdtemp(path.join(tmpdir(), 'jube-r-it-'));
  // Sessions' workspaces: the stack's own, never the working directory's default (.jube-sessions).
  const sessionDir = await mkdtemp(path.join(tmpdir(), 'jube-r-it-sessions-'));
  const started = Date.now();
  const [file, ...args] = command;
  const child = spawn(file!, args, {
    cwd: REPO,
    // The warm start off unless a test asks for it: these tests count the R processes of runs.
    env: { ...process.env, JUBE_R_HOST: '127.0.0.1', JUBE_R_PORT: '0', JUBE_R_TMP_ROOT: tmpRoot, JUBE_R_SESSION_DIR: sessionDir, POWERTOOLS_LOG_LEVEL: 'WARN', JUBE_R_WARM: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`jube-r serve printed no address in 30 s:\n${output}`)), 30_000);
    const look = () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', look);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', look);
    void exited.then(({ code }) => reject(new Error(`jube-r serve exited (${code}):\n${output}`)));
  });
  const startMs = Date.now() - started;

  return {
    url,
    child,
    tmpRoot,
    startMs,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const result = await exited;
      clearTimeout(timer);
      await rm(tmpRoot, { recursive: true, force: true });
      await rm(sessionDir, { recursive: true, force: true });
      return result;
    },
  };
}

/** Command lines of live processes whose command line mentions `marker`. */
export async function processesMentioning(marker: string): Promise<{ pid: number; cmdline: string[] }[]> {
  const found: { pid: number; cmdline: string[] }[] = [];
  for (const { pid } of await processTable()) {
    try {
      const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').filter(Boolean);
      if (cmdline.some((arg) => arg.includes(marker))) found.push({ pid, cmdline });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** The distinct R workdirs (one per execution) named by live processes under `tmpRoot`. */
export async function liveWorkdirs(tmpRoot: string): Promise<Set<string>> {
  const dirs = new Set<string>();
  for (const { cmdline } of await processesMentioning(tmpRoot)) {
    for (const arg of cmdline) {
      if (arg.startsWith(`${tmpRoot}/`)) dirs.add(arg.slice(tmpRoot.length + 1).split('/')[0]!);
    }
  }
  return dirs;
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: Record<string, unknown>;
  readonly ms: number;
}

export async function request(url: string, init: RequestInit = {}): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(url, init);
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // asserted by the caller through `text`
  }
  return { status: response.status, headers: response.headers, text, json, ms: performance.now() - started };
}

export const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  request(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
