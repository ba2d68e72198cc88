/**
 * The white-box chain from "runs R" to "runs a program", step by step, in the Lambda posture
 * (capsule only: no kernel layers, no bubblewrap), through the real execute handler with the
 * escaped runner (no static check: the script already owns R). Each step must fail at its first
 * C-level step; each has a control with exactly that defence off (JUBE_R_TEST_CAPSULE_OFF) where
 * the same step succeeds, so the test shows the defence is what stops it:
 *   1. load a system library        dyn.load("libblas.so.3")           dispatch + dlopen
 *   2. call an arbitrary routine    .C("dcopy_", ...)                    routines
 *   3. learn addresses              /proc/self/maps, /proc/self/mem      proc
 *   4. write a PLT slot             libR's popen slot -> libc's popen    got
 *   5. leak an object's address     data.table::address()               routines
 * Steps 3-4 need a write primitive and addresses the features above no longer give; the fixture
 * package jubepoke (test/fixtures/capsule/pokepkg, installed into a temporary library here) stands
 * in for the memory-safety bug a script would then need.
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readContainment, type CapsuleDefence } from '../../../functions/execute/run/containment.ts';
import { readRuntimeSettings } from '../../../functions/execute/runtime-settings.ts';
import { harness, type Harness } from '../helpers.ts';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const library = mkdtempSync(join(tmpdir(), 'jube-r-poke-lib-'));
const marks = mkdtempSync(join(tmpdir(), 'jube-r-chain-marks-'));
const BLAS = ['/usr/lib/x86_64-linux-gnu/libblas.so.3', '/usr/lib/aarch64-linux-gnu/libblas.so.3', '/usr/lib/libblas.so.3'].find(existsSync)!;

let rLibs = '';
beforeAll(async () => {
  // Built from a copy: R CMD INSTALL leaves its objects in the source directory.
  const source = join(library, '..', `${basename(library)}-src`);
  cpSync(join(repoRoot, 'test/fixtures/capsule/pokepkg'), source, { recursive: true });
  try {
    await execa('R', ['CMD', 'INSTALL', '--no-test-load', `--library=${library}`, source]);
  } finally {
    rmSync(source, { recursive: true, force: true });
  }
  const site = await execa('Rscript', ['--vanilla', '-e', 'cat(.libPaths(), sep = ":")']);
  rLibs = `${library}:${site.stdout}`;
}, 120_000);

afterAll(() => {
  rmSync(library, { recursive: true, force: true });
  rmSync(marks, { recursive: true, force: true });
});

/** The handler in the Lambda posture, escaped, with `off` defences turned off. */
function lambda(off: readonly CapsuleDefence[] = []): Harness {
  const capsule = readContainment().capsule!;
  return harness({
    namespaces: 'none',
    containment: { testEscapedRunner: true, capsule: { ...capsule, kernel: 'off', off } },
    runtimeOverrides: { rLibs },
  });
}

const probe = (label: string, expr: string) =>
  `cat("@@", "${label}", "\\t", gsub("\\n", " ", tryCatch(paste(format(${expr}), collapse = " "), error = function(e) paste("refused:", conditionMessage(e)))), "\\n", sep = "")`;
const probes = (output: string): Record<string, string> =>
  Object.fromEntries(
    output
      .split('\n')
      .filter((l) => l.startsWith('@@'))
      .map((l) => l.slice(2).split('\t') as [string, string]),
  );

describe('step 1: a system library does not load', () => {
  const script = probe("blas", `{ dyn.load("${BLAS}"); any(grepl("blas", names(getLoadedDLLs()))) }`);

  it('dyn.load() of BLAS is refused in R\'s dispatch table, with the native-code message', async () => {
    const out = probes((await lambda().run(script)).consoleOutput);
    expect(out['blas']).toMatch(/^refused: jube-r: dyn\.load loads or calls compiled code directly: compiled code runs here only as installed packages call it/);
  });

  it('the control: with the dispatch row and the dlopen rule off, it loads', async () => {
    const out = probes((await lambda(['dispatch', 'dlopen']).run(script)).consoleOutput);
    expect(out['blas']).toBe('TRUE');
  });

  it('with only the dispatch row off, dlopen() still refuses it', async () => {
    const out = probes((await lambda(['dispatch']).run(script)).consoleOutput);
    expect(out['blas']).toMatch(/^refused: .*shared objects load only from installed R packages/);
  });
});

describe('step 2: no routine outside the installed packages is called, nor a package\'s by the script', () => {
  const script = [
    `try(dyn.load("${BLAS}"))`,
    probe('dcopy', '.C("dcopy_", 2L, c(1, 2), 1L, y = double(2), 1L)$y'),
    probe('stats-cor', '.Call(stats:::C_cor, c(1, 2, 3), c(1, 2, 4), 1L, FALSE)'),
    probe('reduce', 'Reduce(.Call, list(stats:::C_cor, 1))'),
    probe('do.call-base', 'do.call(".Fortran", list(base:::.F_dqrdc2, 1))'),
    // A package function forcing the script's promise, or evaluating the script's expression where
    // the script wrote it, does not vouch for a routine called there.
    probe('promise', 'stats::setNames(.Call(stats:::C_cor, c(1, 2, 3), c(1, 2, 4), 1L, FALSE), "r")'),
    probe('model.frame', 'nrow(model.frame(~ a, data.frame(a = 1:3), subset = .Call(stats:::C_cor, c(1, 2, 3), c(1, 2, 4), 1L, FALSE) > 0))'),
    probe('through-package', 'round(stats::cor(c(1, 2, 3), c(1, 2, 4)), 3)'),
    probe('qr', 'qr(matrix(c(1, 2, 3, 4), 2))$rank'),
  ].join('\n');

  it('a routine of BLAS or of a package, called by the script, is refused at its lookup; the package\'s own R code still calls it', async () => {
    const out = probes((await lambda(['dispatch', 'dlopen']).run(script)).consoleOutput);
    // R's lookup asks dlsym(), which hands out only what a package's own object defines.
    expect(out['dcopy']).toBe('refused: C symbol name "dcopy_" not in load table');
    expect(out['stats-cor']).toMatch(/^refused: jube-r: routine cor of stats loads or calls compiled code directly/);
    expect(out['do.call-base']).toMatch(/^refused: jube-r: routine dqrdc2 of base/);
    expect(out['promise']).toMatch(/^refused: jube-r: routine cor of stats/);
    expect(out['model.frame']).toMatch(/^refused: jube-r: routine cor of stats/);
    expect(out['through-package']).toBe('0.982');
    expect(out['qr']).toBe('2');
  });

  it('with the dispatch table patched, applying .Call as a value is refused there too', async () => {
    const out = probes((await lambda().run(script)).consoleOutput);
    expect(out['reduce']).toMatch(/^refused: jube-r: \.Call loads or calls compiled code directly/);
  });

  it('the control: with the routine rule off as well, dcopy_ runs with the script\'s arguments', async () => {
    const out = probes((await lambda(['dispatch', 'dlopen', 'routines']).run(script)).consoleOutput);
    expect(out['dcopy']).toBe('1 2');
    expect(out['stats-cor']).toMatch(/^0\.98/);
    expect(out['promise']).toMatch(/^0\.98/);
    expect(out['model.frame']).toBe('3');
  });
});

describe('step 3: the process\'s memory and its layout are not readable', () => {
  const script = [
    probe('maps', 'length(readLines("/proc/self/maps")) > 0'),
    probe('mem', '{ con <- file("/proc/self/mem", "rb"); close(con); TRUE }'),
    probe('thread-maps', 'length(readLines("/proc/thread-self/maps")) > 0'),
    probe('stat', 'length(readLines("/proc/self/stat")) > 0'),
    probe('status', 'length(readLines("/proc/self/status")) > 0'),
  ].join('\n');

  it('maps, mem, stat and the task entries answer "permission denied"; status still reads', async () => {
    const out = probes((await lambda().run(script)).consoleOutput);
    for (const entry of ['maps', 'mem', 'thread-maps', 'stat']) expect(out[entry], entry).toMatch(/^refused: cannot open the connection/);
    expect(out['status']).toBe('TRUE');
  });

  it('the control: with the /proc rule off, maps and mem open', async () => {
    const out = probes((await lambda(['proc']).run(script)).consoleOutput);
    expect(out['maps']).toBe('TRUE');
    expect(out['mem']).toBe('TRUE');
  });
});

describe('step 4: a PLT slot cannot be pointed past the capsule', () => {
  const mark = join(marks, 'ran');
  const script = [
    'library(jubepoke)',
    'slot <- plt_slot("libR.so", "popen")',
    probe('poke', 'poke(slot, libc_function("popen"))'),
    probe('system', `system("echo ran > ${mark}; echo shell", intern = TRUE)`),
  ].join('\n');

  it('libR\'s popen slot is on a sealed page: the write faults, and system() is still the capsule\'s to refuse', async () => {
    const h = lambda(['dispatch']);
    const out = probes((await h.run(script)).consoleOutput);
    expect(h.reports.at(-1)!.capsule).toMatch(/ got=sealed\(objects=\d+,slots=[1-9]\d*\/\d+\)/);
    expect(out['poke']).toBe('faulted');
    expect(out['system']).toMatch(/^refused: .*cannot popen/);
    expect(existsSync(mark)).toBe(false);
  });

  it('the control: with the slots left writable, the same write runs a shell', async () => {
    const out = probes((await lambda(['dispatch', 'got']).run(script)).consoleOutput);
    expect(out['poke']).toBe('written');
    expect(out['system']).toBe('shell');
    expect(existsSync(mark)).toBe(true);
    rmSync(mark);
  });
});

describe('step 5: no export hands out an address', () => {
  const script = [
    'library(jubepoke)',
    'x <- c(1, 2, 3)',
    'real <- paste0("0x", address_of(x))',
    probe('same', 'identical(data.table::address(x), data.table::address(x))'),
    probe('differs', 'data.table::address(x) != data.table::address(c(4, 5))'),
    probe('is-real', 'identical(tolower(data.table::address(x)), real)'),
    probe('rlang-is-real', 'identical(tolower(rlang::obj_address(x)), real)'),
  ].join('\n');

  it('data.table::address() and rlang::obj_address() answer a stable token that is not the address', async () => {
    const out = probes((await lambda().run(script)).consoleOutput);
    expect(out).toMatchObject({ same: 'TRUE', differs: 'TRUE', 'is-real': 'FALSE', 'rlang-is-real': 'FALSE' });
  });

  it('the control: with the routine rule off, they answer the real address', async () => {
    const out = probes((await lambda(['routines']).run(script)).consoleOutput);
    expect(out).toMatchObject({ 'is-real': 'TRUE', 'rlang-is-real': 'TRUE' });
  });
});

describe('the test-only switch', () => {
  it('a deployed function refuses to start with defences turned off', () => {
    expect(() => readContainment({ JUBE_R_TEST_CAPSULE_OFF: 'got', JUBE_R_DEPLOYMENT: 'prod' })).toThrow(/JUBE_R_TEST_CAPSULE_OFF is a test-only switch/);
    expect(readRuntimeSettings().containment.capsule?.off).toEqual([]);
  });
});
