/**
 * The R client (clients/r, package jubeR) built with `R CMD build` and checked with `R CMD check`
 * in a temporary directory, its testthat tests running against servers started here: a local stack
 * whose /health declares a layer below R, a second one that checks SigV4 signatures (the verifier
 * API Gateway's IAM authorization stands for) and declares none, a port nothing listens on, and a
 * scripted server that throttles or times out on cue. The check must end without errors or
 * warnings and every testthat test must have run (none skipped) and passed. Then the README's
 * example runs with the package the check installed.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, startStack, type RunningStack } from './local-stack.ts';
import { routePath } from '../../layers/contract/api.ts';

const run = promisify(execFile);
const KEYS = { id: 'AKIDJUBERRCLIENT', secret: 'jube-r-r-client-secret', region: 'eu-west-1' };
const CHECK_TIMEOUT_MS = 600_000;

let plain: RunningStack;
let signed: RunningStack;
let scripted: Server;
let work: string;
const urls: Record<string, string> = {};

const listen = (server: Server) =>
  new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));

/** Answers /t/acme/execute as `mode` says: throttle twice then succeed, always throttle, or a 504 (the script may have run). */
function scriptedServer(): Server {
  let mode = 'throttle-twice';
  let executes = 0;
  const ok = { status: 'ok', consoleOutput: '[1] 4\n', error: null, warnings: [], durationMs: 3, timedOut: false, rVersion: '4.5.0', timestamp: '2026-01-01T00:00:00.000Z', value: { kind: 'json', class: ['numeric'], json: 4 } };
  const error = (code: string, message: string) => JSON.stringify({ code, message, requestId: 'scripted' });
  return createServer((req, res) => {
    const send = (status: number, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
      res.end(body);
    };
    req.resume();
    req.on('end', () => {
      const url = req.url ?? '';
      if (url.startsWith('/mode/')) {
        mode = url.slice('/mode/'.length);
        executes = 0;
        return send(200, '{}');
      }
      if (url === '/count') return send(200, JSON.stringify({ execute: executes }));
      if (url !== routePath('execute', 'acme')) return send(404, error('NOT_FOUND', 'no route'));
      executes += 1;
      if (mode === 'deadline') return send(504, error('EXECUTE_DEADLINE', 'the execute function did not answer in time'));
      if (mode === 'throttle-always' || executes <= 2) return send(503, error('THROTTLED', 'at its concurrency limit'), { 'Retry-After': '1' });
      return send(200, JSON.stringify(ok));
    });
  });
}

beforeAll(async () => {
  [plain, signed] = await Promise.all([
    startStack({ JUBE_R_SANDBOX_LAYERS: 'fresh-rscript-per-call,rlimits,capsule-preload,capsule-landlock' }),
    startStack({
      JUBE_R_SANDBOX_LAYERS: 'fresh-rscript-per-call,rlimits',
      JUBE_R_LOCAL_SIGV4_ACCESS_KEY_ID: KEYS.id,
      JUBE_R_LOCAL_SIGV4_SECRET_ACCESS_KEY: KEYS.secret,
      JUBE_R_LOCAL_SIGV4_REGION: KEYS.region,
    }),
  ]);
  scripted = scriptedServer();
  urls['JUBER_TEST_SCRIPTED_URL'] = await listen(scripted);
  // A port that was just free: nothing listens there while the tests run.
  const closed = createServer();
  urls['JUBER_TEST_STOPPED_URL'] = await listen(closed);
  await new Promise((resolve) => closed.close(resolve));
  urls['JUBER_TEST_URL'] = plain.url;
  urls['JUBER_TEST_SIGNED_URL'] = signed.url;
  work = await mkdtemp(path.join(tmpdir(), 'jube-r-rclient-'));
}, 120_000);

afterAll(async () => {
  await Promise.all([plain?.stop(), signed?.stop(), new Promise((resolve) => (scripted ? scripted.close(resolve) : resolve(undefined)))]);
  if (work) await rm(work, { recursive: true, force: true });
});

const testEnv = () => ({
  ...process.env,
  ...urls,
  JUBER_TEST_KEY_ID: KEYS.id,
  JUBER_TEST_SECRET: KEYS.secret,
  JUBER_TEST_REGION: KEYS.region,
  // No network here: the check's clock probe would only add a note.
  _R_CHECK_SYSTEM_CLOCK_: 'FALSE',
});

describe('the R client jubeR', () => {
  it(
    'passes R CMD check (no errors, no warnings) with every testthat test run against the stacks and passing',
    async () => {
      await run('R', ['CMD', 'build', '--no-build-vignettes', path.join(REPO, 'clients/r')], { cwd: work, timeout: 120_000 });
      const check = await run('R', ['CMD', 'check', '--no-manual', 'jubeR_0.1.0.tar.gz'], {
        cwd: work,
        env: testEnv(),
        timeout: CHECK_TIMEOUT_MS,
      }).catch((error: { stdout?: string; stderr?: string }) => error);
      const log = await readFile(path.join(work, 'jubeR.Rcheck/00check.log'), 'utf8');
      const testOutput = await readFile(path.join(work, 'jubeR.Rcheck/tests/testthat.Rout'), 'utf8').catch(
        async () => readFile(path.join(work, 'jubeR.Rcheck/tests/testthat.Rout.fail'), 'utf8'),
      );
      expect(log, `${check.stdout}\n${check.stderr}\n${testOutput}`).toMatch(/^Status: (OK|\d+ NOTEs?)$/m);
      expect(log).not.toMatch(/\.\.\. (ERROR|WARNING)$/m);
      const counts = /\[ FAIL (\d+) \| WARN (\d+) \| SKIP (\d+) \| PASS (\d+) \]/.exec(testOutput);
      expect(counts, testOutput).not.toBeNull();
      const [, fail, warn, skip, pass] = counts!.map(Number);
      expect({ fail, warn, skip }, testOutput).toEqual({ fail: 0, warn: 0, skip: 0 });
      expect(pass).toBeGreaterThan(50);
    },
    CHECK_TIMEOUT_MS + 150_000,
  );

  it('runs the example in clients/r/README.md with the package the check installed', async () => {
    const readme = await readFile(path.join(REPO, 'clients/r/README.md'), 'utf8');
    const example = [...readme.matchAll(/```r\n([\s\S]*?)```/g)].map((m) => m[1]!).join('\n');
    expect(example).toContain('jube_runner(url');
    const { stdout } = await run('Rscript', ['--vanilla', '-e', example], {
      env: { ...process.env, R_LIBS: path.join(work, 'jubeR.Rcheck'), JUBE_R_URL: plain.url },
      timeout: 120_000,
    });
    expect(stdout).toContain('[1] 4\n');
    expect(stdout).toContain('"FALSE"     "execution"');
    expect(stdout).toMatch(/\$sandboxed\n\[1\] TRUE/);
    expect(stdout).toContain('Create, modify, and delete columns');
  });
});
