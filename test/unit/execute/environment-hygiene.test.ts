/**
 * The cleaning the handler runs at init, before and after every run: which parts a containment
 * turns on, and what it reports. The parts that kill every other process or remove every IPC
 * object of the user run only in the image tier (test/image/escaped.test.ts); here, on a shared
 * host, the directory wipe stands in for the whole, with its cost measured.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readContainment } from '../../../functions/execute/run/containment.ts';
import { cleanEnvironment, few, hygieneSettings, joinReports, PROBLEM_NAMES } from '../../../functions/execute/environment/environment-hygiene.ts';
import { notCleanResponse, ENVIRONMENT_NOT_CLEAN } from '../../../functions/execute/environment/hygiene-response.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('hygieneSettings', () => {
  it('cleans nothing on a host by default', () => {
    expect(hygieneSettings(readContainment({ JUBE_R_CAPSULE: 'off' }))).toBeUndefined();
  });

  it('in the image posture: sweep, wipe, IPC and the listener check; the Runtime API is the platform\'s', () => {
    const containment = readContainment({ JUBE_R_CAPSULE: 'off', JUBE_R_SWEEP: 'environment', JUBE_R_WIPE_AFTER_RUN: '/tmp:/dev/shm' });
    expect(hygieneSettings(containment, { AWS_LAMBDA_RUNTIME_API: '127.0.0.1:9001' })).toMatchObject({
      sweep: true, wipe: ['/tmp', '/dev/shm'], ipc: true, listeners: true, runtimeApi: '127.0.0.1:9001',
    });
  });

  it('leaves IPC alone where the test-only control says so', () => {
    const containment = readContainment({ JUBE_R_CAPSULE: 'off', JUBE_R_SWEEP: 'environment', JUBE_R_IPC_HYGIENE: 'off' });
    expect(hygieneSettings(containment, {})).toMatchObject({ sweep: true, ipc: false, mqueue: undefined });
  });
});

describe('cleanEnvironment', () => {
  it('empties the writable places, reports no problem and its cost in milliseconds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jube-r-env-hygiene-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'left', 'deep'), { recursive: true });
    writeFileSync(join(dir, 'left', 'deep', 'x'), 'x');
    const settings = { sweep: false, wipe: [dir], ipc: false, mqueue: undefined, listeners: false, runtimeApi: undefined };
    const report = await cleanEnvironment('before-run', settings);
    expect(readdirSync(dir)).toEqual([]);
    expect(report).toMatchObject({ phase: 'before-run', problems: [] });
    expect(Number.isFinite(report.ms)).toBe(true);
    expect(report.ms).toBeGreaterThanOrEqual(0);
  });

  it('after a run, in two parts around the reads: `stop` leaves the files (and checks listeners), `files` wipes them; one joined report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jube-r-env-hygiene-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'out.txt'), 'left by the run');
    const settings = { sweep: false, wipe: [dir], ipc: false, mqueue: undefined, listeners: true, runtimeApi: undefined };

    const stop = await cleanEnvironment('after-run', settings, undefined, 'stop');
    const kept = readdirSync(dir);
    const files = await cleanEnvironment('after-run', settings, undefined, 'files');
    const joined = joinReports(stop, files);

    expect(kept).toEqual(['out.txt']);
    expect(stop.wipe).toBeUndefined();
    expect(stop.listeners).toBeDefined();
    expect(files.listeners).toBeUndefined();
    expect(readdirSync(dir)).toEqual([]);
    expect(joined).toMatchObject({ phase: 'after-run', wipe: { removedCount: 1 }, listeners: stop.listeners, problems: [...stop.problems, ...files.problems] });
    expect(joined.ms).toBeCloseTo(stop.ms + files.ms, 0);
  });

  it('names a listener a process outside the chain left, by its port, as a problem', async () => {
    const child = spawn(process.execPath, ['-e', 'const s = require("net").createServer().listen(0, "127.0.0.1", () => console.log(s.address().port))'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const port = await new Promise<number>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
      const settings = { sweep: false, wipe: [], ipc: false, mqueue: undefined, listeners: true, runtimeApi: undefined };
      const report = await cleanEnvironment('after-run', settings);
      expect(report.listeners?.map((l) => l.port)).toContain(port);
      expect(report.problems.join('\n')).toMatch(new RegExp(`TCP listeners on ports [0-9, ]*\\b${port}\\b[0-9, ]* are left`));
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('notCleanResponse', () => {
  it('is the service\'s error with a stable code, naming what is left and not running the script', () => {
    const response = notCleanResponse({ phase: 'init', problems: ['System V IPC objects msg 3 could not be removed'] }, { durationMs: 1, rVersion: '4.5.0', timestamp: 't' });
    expect(response).toMatchObject({ status: 'error', errorType: 'interpreter', retryable: false, consoleOutput: '' });
    expect(response.error).toMatch(new RegExp(`^${ENVIRONMENT_NOT_CLEAN}: .*\\(init\\): System V IPC objects msg 3 could not be removed; the script was not run`));
  });
});

describe('a problem line', () => {
  it('names at most PROBLEM_NAMES things and counts the rest, however many a run left', () => {
    const pids = Array.from({ length: 4096 }, (_, i) => i + 2);
    const line = few(pids);
    expect(line.split(', ')).toHaveLength(PROBLEM_NAMES + 1);
    expect(line.endsWith(`, ${4096 - PROBLEM_NAMES} more`)).toBe(true);
    expect(few([7, 8])).toBe('7, 8');
  });
});
