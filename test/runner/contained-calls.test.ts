/**
 * Sys.getenv(), setwd() and sink() with real R through the execute handler (script-rules.json
 * relaxations.environmentReads, workingDirectory, consoleDiversion): /validate and the runtime give
 * the same verdict, the accepted forms run as R runs them, and in the hostile posture (a secret in
 * the handler's environment, escapes by '/', '..' and paths outside, a sink left open) the script's
 * versions hold at run time what the static walk cannot see. The R side's own cases, symlinks
 * included, are test/runner/r/test-contained-calls.R.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadManifest } from '../../layers/packages/manifest.ts';
import { loadRules } from '../../layers/rules/rules.ts';
import { manifestPackages } from '../../layers/validator/package-lists.ts';
import { loadValidator } from '../../layers/validator/validator.ts';
import { acceptEverything, harness } from './helpers.ts';

const validator = loadValidator({ rules: loadRules(), ...manifestPackages(loadManifest()) });
const runtime = harness({ validator: acceptEverything });
const SECRET = 'contained-7c1e-do-not-leak';

const verdicts = async (script: string) => {
  const statically = (await (await validator)(script)).errors.map((e) => `${e.code}:${e.symbol ?? ''}`);
  const response = await runtime.run(script);
  const atRuntime = response.status === 'rejected' ? (response.validation?.errors ?? []).map((e) => `${e.code}:${e.symbol ?? ''}`) : [];
  return { statically, atRuntime, response };
};

beforeAll(() => {
  process.env['AWS_SECRET_ACCESS_KEY'] = SECRET;
});
afterAll(() => {
  delete process.env['AWS_SECRET_ACCESS_KEY'];
});

describe('Sys.getenv(): read by literal name, answered only for harmless names', () => {
  it('the names real code reads come back; every other one is unset, even one R has', async () => {
    const script = [
      'cat(Sys.getenv("TZ"), Sys.getenv("LANG"), nzchar(Sys.getenv("R_HOME")), identical(Sys.getenv("NOT_CRAN"), "true"), "\\n")',
      // PATH and the capsule's settings are in R's environment (child-env.ts), but not listed.
      'cat(Sys.getenv("PATH"), Sys.getenv("JUBE_R_CAPSULE_WORKDIR", unset = "unset"), Sys.getenv("AWS_SECRET_ACCESS_KEY"), "\\n")',
      'all <- Sys.getenv()',
      'print(intersect(c("PATH", "LD_PRELOAD", "JUBE_R_RUN", "AWS_SECRET_ACCESS_KEY"), names(all)))',
      'all(c("TZ", "HOME", "TMPDIR") %in% names(all))',
    ].join('\n');
    const { statically, atRuntime, response } = await verdicts(script);
    expect(statically).toEqual([]);
    expect(atRuntime).toEqual([]);
    expect(response).toMatchObject({ status: 'ok', value: { json: true } });
    expect(response.consoleOutput).toBe('UTC C.UTF-8 TRUE FALSE \n unset  \ncharacter(0)\n[1] TRUE\n');
    expect(JSON.stringify(response)).not.toContain(SECRET);
  });

  it('a computed name is refused by both with the same code', async () => {
    const { statically, atRuntime } = await verdicts('Sys.getenv(paste0("AWS_SECRET", "_ACCESS_KEY"))');
    expect(statically).toEqual(['FORBIDDEN_SYMBOL:Sys.getenv']);
    expect(atRuntime).toEqual(statically);
  });
});

describe('setwd(): inside the run\'s directory or tempdir(), and back', () => {
  it('moves, returns the old directory, and the run\'s out/ files and plots still come back', async () => {
    const script = [
      'start <- getwd()',
      'dir.create("work")',
      'old <- setwd("work")',
      'writeLines("in work", "note.txt")',
      'setwd(tempdir())',
      'setwd(old)',
      'cat(identical(old, start), file.exists("work/note.txt"), "\\n")',
      'setwd("work")',
      // The script ends elsewhere: the runner's out/, plots and envelope do not depend on it.
      'writeLines("from work", "../out/result.txt")',
      'plot(1:3)',
      'basename(getwd())',
    ].join('\n');
    const { statically, atRuntime, response } = await verdicts(script);
    expect(statically).toEqual([]);
    expect(atRuntime).toEqual([]);
    expect(response).toMatchObject({ status: 'ok', consoleOutput: 'TRUE TRUE \n[1] "work"\n', value: { json: 'work' } });
    expect(response.files?.map((f) => f.name)).toEqual(['result.txt']);
    expect(response.plots).toHaveLength(1);
  });

  it.each([
    ['the root, computed', 'setwd(paste0("/", ""))'],
    ['the parent of the run\'s directory', 'setwd("..")'],
    ['out through a subdirectory', 'dir.create("a")\nsetwd("a/../..")'],
    ['out of tempdir() (inside the run\'s directory) past the run\'s directory', 'setwd(tempdir())\nsetwd("../../..")'],
  ])('refuses %s at run time', async (_, script) => {
    const { statically, response } = await verdicts(`${script}\ngetwd()`);
    expect(statically).toEqual([]);
    expect(response).toMatchObject({ status: 'error', error: expect.stringContaining("setwd() may only move inside the run's working directory or tempdir()") });
  });

  it('a literal "/" is refused by both with the same code', async () => {
    const { statically, atRuntime } = await verdicts('setwd("/")');
    expect(statically).toEqual(['FORBIDDEN_SYMBOL:setwd']);
    expect(atRuntime).toEqual(statically);
  });
});

describe('sink(): the script\'s own output into a file of its run', () => {
  it('diverts printed output into out/ and back, as R does; the console keeps the rest', async () => {
    const script = ['sink("out/log.txt")', 'print(1:3)', 'message("a message stays on the console")', 'sink()', 'sink.number()'].join('\n');
    const { statically, atRuntime, response } = await verdicts(script);
    expect(statically).toEqual([]);
    expect(atRuntime).toEqual([]);
    expect(response).toMatchObject({ status: 'ok', value: { json: 0 }, messages: ['a message stays on the console'] });
    expect(response.consoleOutput).toBe('a message stays on the console\n[1] 0\n');
    const log = response.files?.find((f) => f.name === 'log.txt');
    expect(Buffer.from(log?.data ?? '', 'base64').toString('utf8')).toBe('[1] 1 2 3\n');
  });

  it('a sink left open: the runner closes it, and the envelope, value and messages are intact', async () => {
    const script = ['sink("kept.txt")', 'sink("out/nested.txt", split = TRUE)', 'message("still captured")', 'cat("split\\n")', 'x <- 41 + 1', 'x'].join('\n');
    const { statically, response } = await verdicts(script);
    expect(statically).toEqual([]);
    expect(response).toMatchObject({ status: 'ok', value: { json: 42 }, messages: ['still captured'] });
    expect(response.consoleOutput).toContain('still captured');
  });

  it.each([
    ['a file outside the run, computed', 'sink(file.path(dirname(tempdir()), "..", "..", "escape.txt"))', 'may write only inside'],
    ['/tmp, computed', 'sink(paste0("/tmp/", "jube-escape.txt"))', 'may write only inside'],
    ['stderr()', 'sink(stderr())', 'may write only to a file inside'],
  ])('refuses %s at run time', async (_, script, error) => {
    const { statically, response } = await verdicts(`${script}\nprint("hidden?")`);
    expect(statically).toEqual([]);
    expect(response).toMatchObject({ status: 'error', error: expect.stringContaining(error) });
  });

  it.each([
    ['a literal path outside', 'sink("/tmp/jube-escape.txt")'],
    ['the message stream', 'sink(stdout(), type = "message")'],
  ])('refuses %s by both with the same code', async (_, script) => {
    const { statically, atRuntime } = await verdicts(script);
    expect(statically).toEqual(['FORBIDDEN_SYMBOL:sink']);
    expect(atRuntime).toEqual(statically);
  });

  it('the refusal\'s advice runs', async () => {
    const statically = (await (await validator)('sink("/tmp/x.txt")')).errors[0]?.message ?? '';
    const { response } = await verdicts('sink("/tmp/x.txt")');
    for (const advice of [statically, response.validation?.errors[0]?.message ?? '']) expect(advice).toContain('sink("out/log.txt") ... sink()');
    const followed = await verdicts('sink("out/log.txt")\nprint(1)\nsink()\n2');
    expect(followed.statically).toEqual([]);
    expect(followed.response).toMatchObject({ status: 'ok', value: { json: 2 } });
  });
});
