/**
 * The README is true: every command in its shell blocks is run here as written (the local stack
 * started with the literal `npm start`, curl pointed at it, the CLI examples), or is one CI runs
 * itself (`.ci/run`, `scripts/test.sh`). A command added to the README without a way to exercise
 * it fails this test.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, startStack, type RunningStack } from './local-stack.ts';

const run = promisify(execFile);
const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
const ciRun = readFileSync(path.join(REPO, '.ci/run'), 'utf8');
const testScript = readFileSync(path.join(REPO, 'scripts/test.sh'), 'utf8');

/** Shell commands of the README's ```sh blocks: continuations joined, comments dropped. */
function readmeCommands(): string[] {
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks
    .flatMap((block) => block.replace(/\\\n\s*/g, '').split('\n'))
    .map((line) => line.replace(/\s+#.*$/, '').replace(/^#.*$/, '').trim())
    .filter(Boolean);
}

const commands = readmeCommands();
const byCI = new Set(['npm run setup', 'npm test']);
const isCurl = (c: string) => c.startsWith('curl ');
const isCli = (c: string) => c.startsWith('npx jube-r ');

let stack: RunningStack | undefined;

beforeAll(async () => {
  stack = await startStack({}, ['npm', 'start', '--silent']);
});

afterAll(async () => {
  // Ctrl-C reaches npm, which forwards it to the server (the start script execs node).
  await stack?.stop('SIGINT');
  expect(stack?.output()).toContain('jube-r: stopped');
  // A clean start and the README's calls print no Node warning (the AWS SDK's Node-version notice included).
  expect(stack?.output()).not.toMatch(/\(node:\d+\) \S*Warning/);
  await expect(fetch(`${stack!.url}/health`)).rejects.toThrow();
});

describe('README commands', () => {
  it('are all of a kind this test (or CI itself) exercises', () => {
    const unknown = commands.filter(
      (c) => !byCI.has(c) && c !== 'npm start' && c !== 'npm run bench' && !isCurl(c) && !isCli(c),
    );
    expect(unknown).toEqual([]);
    expect(commands).toEqual(expect.arrayContaining(['npm run setup', 'npm test', 'npm start']));
  });

  it('npm run setup and npm test are exactly what CI runs, and CI runs the benchmark', () => {
    expect(ciRun).toMatch(/^npm run setup\nnpm test$/m);
    expect(testScript).toContain('npm run --silent bench');
  });

  it('npm start serves the stack on the address it prints', () => {
    expect(stack!.output()).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
  });

  it.each(commands.filter(isCurl))('%s', async (command) => {
    const pointed = command.replaceAll('http://127.0.0.1:8080', stack!.url);
    const { stdout } = await run('bash', ['-c', pointed], { cwd: REPO });
    const body = JSON.parse(stdout) as { status?: string; deleted?: boolean };
    // In the README's order: a session's second call runs only if the first one's workspace came back,
    // and the DELETE that ends it finds that workspace.
    if (command.includes('-X DELETE')) expect(body.deleted).toBe(true);
    else expect(body.status).toBe('ok');
  });

  // Each exits 0 (execFile rejects otherwise); what it prints depends on its output format.
  it.each(commands.filter(isCli))('%s', async (command) => {
    const { stdout } = await run('bash', ['-c', command], { cwd: REPO, timeout: 60_000 });
    if (/ --help\b/.test(command)) {
      expect(stdout).toMatch(/^usage: jube-r/);
    } else if (/ --format text\b/.test(command)) {
      const lines = stdout.split('\n').filter(Boolean);
      expect(lines.at(-1)).toMatch(/^[^:]+: valid$/);
      for (const line of lines.slice(0, -1)) expect(line).toMatch(/^[^:]+:\d+:\d+: (?:warning|info) /);
    } else {
      const body = JSON.parse(stdout) as { valid?: boolean; status?: string };
      expect(body.valid ?? body.status === 'ok').toBe(true);
    }
  });
});
