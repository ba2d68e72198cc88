/**
 * Inside R, the capsule arms only with R's tables patched (r-image/capsule/rinternals.c): a
 * process that is R but whose table, entries or API the capsule cannot find is reported not armed,
 * and nothing in it is half-patched. Real R always has them, so stand-ins are built here: small
 * programs named R that export (or not) an R_FunTab of R's layout, then arm the preloaded capsule.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPSULE_LIBRARY } from './armed-r.ts';

/** Every name the capsule patches, with R's arity for it. */
const ENTRIES: ReadonlyArray<[string, number]> = [
  ['mkCode', 2], ['bcClose', 3], ['bodyCode', 1], ['disassemble', 1], ['bcVersion', 0], ['is.builtin.internal', 1],
  ['bcprofcounts', 0], ['bcprofstart', 0], ['bcprofstop', 0], ['inspect', -1], ['address', 1], ['tracemem', 1],
  ['retracemem', -1], ['unserializeFromConn', 2], ['unserialize', 2], ['loadFromConn2', 3], ['loadInfoFromConn2', 1],
  ['serializeInfoFromConn', 1], ['load', 2], ['lazyLoadDBfetch', 4],
];

const SOURCE = String.raw`
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
typedef struct { int kind, precedence; unsigned int rightassoc; } PPinfo;
typedef struct { char *name; void *cfun; int code, eval, arity; PPinfo gram; } FUNTAB;
static int original;
#ifdef TABLE
/* Other entries around the patched ones, as in R: those land on pages of the table alone. */
#define PAD4 {"pad", &original, 0, 1, -1, {0, 0, 0}}, {"pad", &original, 0, 1, -1, {0, 0, 0}}, {"pad", &original, 0, 1, -1, {0, 0, 0}}, {"pad", &original, 0, 1, -1, {0, 0, 0}},
#define PAD64 PAD4 PAD4 PAD4 PAD4 PAD4 PAD4 PAD4 PAD4 PAD4 PAD4 PAD4 PAD4 PAD4 PAD4 PAD4 PAD4
#define PAD256 PAD64 PAD64 PAD64 PAD64
FUNTAB R_FunTab[] = {
  PAD256
  ENTRIES
  PAD256
  {0, 0, 0, 0, 0, {0, 0, 0}}};
#endif
#ifdef API
/* Present for the lookups only: nothing calls them here. */
void Rf_errorcall(void) {}
void getPRIMNAME(void) {}
void CAR(void) {}
void CADR(void) {}
void TYPEOF(void) {}
void Rf_length(void) {}
void STRING_ELT(void) {}
void Rf_translateChar(void) {}
void Rf_inherits(void) {}
void R_GetConnection(void) {}
void *R_NaString;
#endif
int main(void) {
  void (*arm)(int *, char **) = (void (*)(int *, char **))dlsym(RTLD_DEFAULT, "jube_capsule_arm");
  char buffer[256] = "", *report = buffer;
  int status = -1;
  if (arm) arm(&status, &report);
  printf("status=%d report=%s", status, report);
#ifdef TABLE
  int patched = 0;
  for (FUNTAB *e = R_FunTab; e->name; e++) patched += e->cfun != (void *)&original;
  printf(" patched=%d\n", patched);
  fflush(stdout);
  /* Armed (1) or without the capsule (-1): a memory write to the first entry after the padding,
   * as an exploit putting mkCode back would make. */
  if (status != 0) {
    R_FunTab[256].cfun = (void *)&original;
    printf("wrote\n");
  }
#endif
  printf("\n");
  return 0;
}
`;

let dir: string;
let workdir: string;

/** Builds a stand-in named R from the entries given (none: no table at all). */
async function standIn(name: string, entries: ReadonlyArray<[string, number]> | undefined, api = false): Promise<string> {
  const folder = join(dir, name);
  await execa('mkdir', ['-p', folder]);
  const source = join(folder, 'r.c');
  writeFileSync(source, SOURCE);
  const binary = join(folder, 'R');
  const table = entries ? ['-DTABLE', `-DENTRIES=${entries.map(([n, a]) => `{"${n}", &original, 0, 11, ${a}, {0, 0, 0}},`).join('')}`] : [];
  await execa('cc', ['-O1', '-rdynamic', ...table, ...(api ? ['-DAPI'] : []), '-o', binary, source, '-ldl']);
  return binary;
}

async function arm(binary: string): Promise<string> {
  return (await armed(binary)).stdout;
}

async function armed(binary: string, preload = CAPSULE_LIBRARY): Promise<{ stdout: string; signal: string | undefined }> {
  const result = await execa(binary, [], {
    cwd: workdir,
    reject: false,
    extendEnv: false,
    env: { PATH: '/usr/bin:/bin', LD_PRELOAD: preload, JUBE_R_CAPSULE_WORKDIR: workdir, JUBE_R_CAPSULE_KERNEL: 'off' },
  });
  return { stdout: String(result.stdout).trim(), signal: result.signal ?? undefined };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'jube-r-fake-r-'));
  workdir = mkdtempSync(join(tmpdir(), 'jube-r-fake-r-workdir-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(workdir, { recursive: true, force: true });
});

describe('arming inside R without R\'s tables', () => {
  it('refuses to arm an R that exports no R_FunTab', async () => {
    expect(await arm(await standIn('no-table', undefined))).toBe('status=0 report=preload=unavailable(rinternals: R_FunTab is not exported by libR)');
  });

  it('refuses to arm when an entry is missing, and patches none of the others', async () => {
    const binary = await standIn('no-mkcode', ENTRIES.filter(([n]) => n !== 'mkCode'));
    expect(await arm(binary)).toBe('status=0 report=preload=unavailable(rinternals: R_FunTab lacks mkCode) patched=0');
  });

  it('refuses to arm when an entry does not read as R\'s layout (its arity differs)', async () => {
    const binary = await standIn('bad-arity', ENTRIES.map(([n, a]) => [n, n === 'inspect' ? 7 : a] as [string, number]));
    expect(await arm(binary)).toBe('status=0 report=preload=unavailable(rinternals: R_FunTab has an unexpected entry for inspect) patched=0');
  });

  it('refuses to arm when R\'s API functions cannot be found, and patches nothing', async () => {
    const binary = await standIn('no-api', ENTRIES);
    expect(await arm(binary)).toBe('status=0 report=preload=unavailable(rinternals: R lacks Rf_errorcall) patched=0');
  });
});

describe('arming inside R with everything found', () => {
  it('patches every entry and seals the table\'s own pages: a memory write putting one back faults', async () => {
    const run = await armed(await standIn('complete', ENTRIES, true));
    expect(run.stdout).toBe('status=1 report=preload=armed landlock=off seccomp=off rinternals=patched(removed=13,fenced=7,sealed=20) patched=20');
    expect(run.signal).toBe('SIGSEGV');
  });

  it('the control: without the capsule the same write goes through', async () => {
    const run = await armed(await standIn('complete-control', ENTRIES, true), '');
    expect(run).toEqual({ stdout: 'status=-1 report= patched=0\nwrote', signal: undefined });
  });
});
