/**
 * Sessions through the local stack (docs/sessions.md): a session's workspace comes back at its next
 * call, from the store's snapshot, and nobody else's call sees it; what cannot be kept is named; a
 * snapshot that is not the runner's data (crafted in the store) is refused and the call starts
 * new; an idle session expires; DELETE ends one.
 */
import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecuteResponseSchema, type ExecuteResponse } from '../../layers/contract/execute.ts';
import { postJson, request, startStack, type RunningStack } from './local-stack.ts';

let stack: RunningStack;
let store: string;
const TENANT = 'acme';
const IDLE_SECONDS = 600;

beforeAll(async () => {
  store = await mkdtemp(path.join(tmpdir(), 'jube-sessions-'));
  stack = await startStack({ JUBE_R_WARM: 'on', JUBE_R_SESSION_DIR: store, JUBE_R_SESSION_IDLE_SECONDS: String(IDLE_SECONDS) });
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  if (store) await rm(store, { recursive: true, force: true });
});

async function run(script: string, session?: string): Promise<ExecuteResponse> {
  const answer = await postJson(`${stack.url}/t/${TENANT}/execute`, { script }, session ? { 'X-Jube-Session': session } : {});
  expect(answer.status, answer.text.slice(0, 500)).toBe(200);
  return ExecuteResponseSchema.parse(answer.json);
}
const names = (r: ExecuteResponse) => (r.session?.objects ?? []).map((o) => o.name);
const storedFile = (session: string) => path.join(store, TENANT, `${session}.json`);

describe('a session keeps its workspace between calls', () => {
  it('call 1 makes d and f, call 2 uses them; another session and a session-less call see neither', async () => {
    const first = await run('d <- mtcars |> subset(cyl == 4)\nf <- function(x) mean(x)\nlibrary(stats)', 'alpha');
    expect(first.status).toBe('ok');
    expect(first.session).toMatchObject({ id: 'alpha', call: 1, state: 'new' });
    expect(names(first)).toEqual(['d', 'f']);
    expect(first.session?.objects.find((o) => o.name === 'd')?.class).toBe('data.frame');

    const second = await run('f(d$mpg)', 'alpha');
    expect(second.status).toBe('ok');
    expect(second.session).toMatchObject({ id: 'alpha', call: 2, state: 'restored' });
    expect(second.value).toMatchObject({ kind: 'json', json: Number(mean4()) });

    const other = await run('c(exists("d"), exists("f"))', 'beta');
    expect(other.value).toMatchObject({ kind: 'json', json: [false, false] });
    expect(other.session).toMatchObject({ id: 'beta', state: 'new' });
    const none = await run('c(exists("d"), exists("f"))');
    expect(none.value).toMatchObject({ kind: 'json', json: [false, false] });
    expect(none.session).toBeUndefined();
  });

  it('keeps factors, dates, matrices, lists, options and the random state exactly', async () => {
    const script = [
      'g <- factor(c("b", "a", NA), levels = c("a", "b"))',
      'when <- as.Date("2026-01-31") + 0:2',
      'stamp <- as.POSIXct("2026-12-05 10:00:00", tz = "UTC")',
      'm <- matrix(c(1.5, NA, Inf, -0), 2, dimnames = list(c("r1", "r2"), c("a", "b")))',
      'l <- list(a = 1L, b = list(c = "x", d = TRUE), e = NULL)',
      'options(digits = 4)',
      'set.seed(42)',
    ].join('\n');
    expect((await run(script, 'kinds')).status).toBe('ok');
    const check = await run([
      '# The random state call 1 left: the same draw as right after set.seed(42).',
      'x <- runif(1)',
      'set.seed(42); y <- runif(1)',
      'list(',
      '  g = identical(g, factor(c("b", "a", NA), levels = c("a", "b"))),',
      '  when = identical(when, as.Date("2026-01-31") + 0:2),',
      '  stamp = identical(stamp, as.POSIXct("2026-12-05 10:00:00", tz = "UTC")),',
      '  m = identical(m, matrix(c(1.5, NA, Inf, -0), 2, dimnames = list(c("r1", "r2"), c("a", "b")))),',
      '  l = identical(l, list(a = 1L, b = list(c = "x", d = TRUE), e = NULL)),',
      '  digits = getOption("digits"), seeded = x == y',
      ')',
    ].join('\n'), 'kinds');
    expect(check.value).toMatchObject({ kind: 'json', json: { g: true, when: true, stamp: true, m: true, l: true, digits: 4, seeded: true } });
  });

  it('keeps a tibble read_csv() made (its column spec left out) and a grouped summary', async () => {
    const first = await run('library(readr)\nlibrary(dplyr)\nsales <- read_csv(I("region,units\\nnorth,3\\nsouth,4\\nnorth,5"), show_col_types = FALSE)\ntotals <- sales |> group_by(region) |> summarise(n = sum(units))', 'tibbles');
    expect(first.status, JSON.stringify(first)).toBe('ok');
    expect(first.session?.dropped).toBeUndefined();
    const second = await run('c(nrow(sales), totals$n)', 'tibbles');
    expect(second.value).toMatchObject({ kind: 'json', json: [3, 8, 4] });
  });

  it('names what it cannot keep (a fitted model, an environment) and the rest comes back', async () => {
    const first = await run('fit <- lm(mpg ~ wt, data = mtcars)\ne <- new.env()\nkeep <- 1:3', 'models');
    expect(first.status).toBe('ok');
    const notes = first.notes?.join('\n') ?? '';
    expect(notes).toMatch(/`fit` \(lm\) is not kept for the session's next call/);
    expect(notes).toMatch(/`e` \(environment\) is not kept/);
    expect(first.session?.dropped?.map((d) => d.name).sort()).toEqual(['e', 'fit']);
    const second = await run('c(exists("fit"), exists("e"), sum(keep))', 'models');
    expect(second.value).toMatchObject({ kind: 'json', json: [0, 0, 6] });
    expect(second.notes?.join('\n')).toMatch(/`fit` \(lm\) was not restored/);
  });

  it('a call that fails keeps what it made before the error, as a console does', async () => {
    const failed = await run('made <- 1:3\nstop("halfway")\nnever <- 1', 'errors');
    expect(failed.status).toBe('error');
    expect(failed.session).toMatchObject({ call: 1 });
    const next = await run('c(exists("made"), exists("never"))', 'errors');
    expect(next.value).toMatchObject({ kind: 'json', json: [true, false] });
  });

  it('an object the session does not hold: the hint names the ones it does', async () => {
    await run('sales <- data.frame(x = 1:3)', 'hints');
    const missing = await run('summary(fitted_model)', 'hints');
    expect(missing.status).toBe('error');
    expect(missing.errorDetails?.hints?.join('\n')).toMatch(/`fitted_model` is not in this session's workspace, which holds `sales`/);
  });
});

describe('a snapshot is hostile input', () => {
  const craft = async (session: string, snapshot: unknown) =>
    writeFile(storedFile(session), JSON.stringify({ call: 1, snapshot: gzipSync(JSON.stringify(snapshot)).toString('base64') }));
  const base = { version: 1, call: 1, packages: [], options: {}, dropped: [] };

  it.each([
    ['a closure node', { ...base, objects: [{ name: 'x', kind: 'closure', body: 'system("id")' }] }, /a node of kind 'closure' is not data/],
    ['an environment node', { ...base, objects: [{ name: 'x', kind: 'environment', parent: 'global' }] }, /a node of kind 'environment' is not data/],
    ['a promise node', { ...base, objects: [{ name: 'x', kind: 'promise', code: 'system("id")' }] }, /a node of kind 'promise' is not data/],
    ['byte code', { ...base, objects: [{ name: 'x', kind: 'bytecode', values: 'AAAA' }] }, /a node of kind 'bytecode' is not data/],
    ['serialized R (an RDS stream as a raw vector)', { ...base, objects: [{ name: 'x', kind: 'vector', type: 'raw', length: 4, values: 'WAoAAA==' }] }, /a vector's type is not a data type/],
    ['a function whose source calls a capability', { ...base, objects: [{ name: 'f', kind: 'function', source: 'function() system("id")' }] }, /`f` was not restored: its source calls a capability the sandbox refuses/],
    ['an attribute the writer never writes', { ...base, objects: [{ name: 'x', kind: 'vector', type: 'integer', length: 0, values: '', attributes: { '.Environment': { kind: 'null' } } }] }, /an attribute is not one the runner writes/],
    ['a type that is not data', { ...base, objects: [{ name: 'x', kind: 'vector', type: 'externalptr', length: 0, values: '' }] }, /a vector's type is not a data type/],
    ['bytes that do not match the length', { ...base, objects: [{ name: 'x', kind: 'vector', type: 'double', length: 1000000, values: 'AAAAAAAAAAA=' }] }, /bytes do not match its length/],
    ['a package the allow-list does not hold', { ...base, objects: [], packages: ['tcltk'] }, /attaches a package the allow-list does not hold/],
    ['a function whose source is not one function', { ...base, objects: [{ name: 'f', kind: 'function', source: 'system("id"); function() 1' }] }, /`f` was not restored: its source is not one function/],
  ])('%s: refused with a clear note, and the call runs with an empty workspace', async (_name, snapshot, why) => {
    const session = `crafted-${Math.random().toString(36).slice(2, 8)}`;
    await craft(session, snapshot);
    const answer = await run('ls()', session);
    expect(answer.status).toBe('ok');
    expect(answer.notes?.join('\n')).toMatch(why);
    expect(answer.value).toMatchObject({ kind: 'json' });
    expect((answer.value as { json: unknown }).json).not.toContain('x');
  });

  it('a snapshot nested past the bound is refused before R reads it', async () => {
    const session = 'deep';
    const deep = `{"version":1,"objects":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    await writeFile(storedFile(session), JSON.stringify({ call: 1, snapshot: gzipSync(deep).toString('base64') }));
    const answer = await run('1 + 1', session);
    expect(answer.status).toBe('ok');
    expect(answer.notes?.join('\n')).toMatch(/nests deeper than \d+ levels/);
    expect(answer.session?.state).toBe('new');
  });

  it('a snapshot that inflates past the cap is refused before R sees it', async () => {
    const session = 'bomb';
    await writeFile(storedFile(session), JSON.stringify({ call: 1, snapshot: gzipSync(Buffer.alloc(8 * 1024 * 1024, 32)).toString('base64') }));
    const answer = await run('1 + 1', session);
    expect(answer.status).toBe('ok');
    expect(answer.notes?.join('\n')).toMatch(/not a gzip of at most \d+ bytes/);
    expect(answer.session?.state).toBe('new');
  });
});

describe('lifecycle', () => {
  it('an idle session expires: its next call starts new, with a note', async () => {
    await run('kept <- 1', 'idle');
    const past = new Date(Date.now() - (IDLE_SECONDS + 60) * 1000);
    await utimes(storedFile('idle'), past, past);
    const next = await run('exists("kept")', 'idle');
    expect(next.value).toMatchObject({ kind: 'json', json: false });
    expect(next.session).toMatchObject({ state: 'new', call: 1 });
    expect(next.notes?.join('\n')).toMatch(/idle longer than 600 s/);
  });

  it('DELETE /t/{tenant}/session ends it: the snapshot is gone and the next call starts new', async () => {
    await run('kept <- 1', 'ending');
    expect(JSON.parse(await readFile(storedFile('ending'), 'utf8'))).toMatchObject({ call: 1 });
    const ended = await request(`${stack.url}/t/${TENANT}/session`, { method: 'DELETE', headers: { 'X-Jube-Session': 'ending' } });
    expect([ended.status, ended.json]).toEqual([200, { session: 'ending', deleted: true }]);
    const again = await request(`${stack.url}/t/${TENANT}/session`, { method: 'DELETE', headers: { 'X-Jube-Session': 'ending' } });
    expect(again.json).toEqual({ session: 'ending', deleted: false });
    const next = await run('exists("kept")', 'ending');
    expect(next.value).toMatchObject({ kind: 'json', json: false });
    expect(next.session?.state).toBe('new');
    const noHeader = await request(`${stack.url}/t/${TENANT}/session`, { method: 'DELETE' });
    expect([noHeader.status, noHeader.json['code']]).toEqual([400, 'INVALID_SESSION']);
  });
});

/** mean(mtcars$mpg[mtcars$cyl == 4]) as R prints it in JSON (15 significant digits). */
function mean4(): string {
  const mpg = [22.8, 24.4, 22.8, 32.4, 30.4, 33.9, 21.5, 27.3, 26, 30.4, 21.4];
  return (mpg.reduce((a, b) => a + b, 0) / mpg.length).toPrecision(15);
}
