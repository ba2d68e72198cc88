/**
 * Inside R, the capsule arms only with the capability table's rows patched into R's dispatch table
 * (r-image/capsule/dispatch.c): a process that is R but whose table, entries, API or call contexts
 * the capsule cannot find or read is reported not armed, and nothing in it is half-patched. Real R
 * always has them, so stand-ins are built here: small programs named R that export (or not) an
 * R_FunTab of R's layout, the R API the capsule resolves, and a call context like the one R makes
 * for the .C() that arms the capsule; then they arm the preloaded capsule.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATEGORY_NAMES, loadCapabilities } from '../../../layers/rules/capabilities.ts';
import { CAPSULE_LIBRARY } from './armed-r.ts';

/** Every entry the table patches, with R's arity where the table checks one. */
const capabilities = loadCapabilities();
const ENTRIES: ReadonlyArray<[string, number]> = CATEGORY_NAMES.flatMap((c) =>
  (capabilities.categories[c].dispatch ?? []).map((d) => [d.entry, d.arity ?? -1] as [string, number]),
);
const REFUSED = CATEGORY_NAMES.flatMap((c) => capabilities.categories[c].dispatch ?? []).filter((d) => d.action === 'refuse').length;

const SOURCE = String.raw`
#define _GNU_SOURCE
#include <dlfcn.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
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
/* R's objects, as far as the capsule's arming looks at them. */
typedef struct object { int type; struct object *car; } object;
static object nil = {0, 0}, base_env = {4, 0}, dot_c = {1, 0}, other_symbol = {1, 0}, call = {6, &dot_c};
struct context { struct context *next; int callflag; sigjmp_buf jb; int cstacktop, evaldepth; void *promargs, *callfun, *sysparent, *call, *cloenv; };
static struct context toplevel, builtin;
void *R_NilValue = &nil, *R_BaseEnv = &base_env, *R_NaString = &nil, *R_BaseNamespace = &nil, *R_GlobalEnv = &nil,
     *R_EmptyEnv = &nil, *R_NamespaceRegistry = &nil;
struct context *R_GlobalContext = &builtin;
int TYPEOF(object *x) { return x->type; }
object *CAR(object *x) { return x->car; }
object *Rf_install(const char *name) { return strcmp(name, ".C") == 0 ? &dot_c : &other_symbol; }
object *R_GetCurrentEnv(void) { return R_GlobalContext->sysparent; }
__attribute__((constructor)) static void contexts(void) {
  builtin.next = &toplevel;
  builtin.callflag = CONTEXT_FLAG;
  builtin.callfun = &nil;
  builtin.sysparent = builtin.cloenv = &base_env;
  builtin.call = &call;
}
/* Present for the lookups only: arming never calls them here. */
#define STUB(name) void name(void) {}
STUB(Rf_errorcall) STUB(Rf_error) STUB(getPRIMNAME) STUB(CDR) STUB(CADR) STUB(CADDR) STUB(TAG) STUB(SETCAR) STUB(Rf_length)
STUB(STRING_ELT) STUB(Rf_translateChar) STUB(Rf_inherits) STUB(R_GetConnection) STUB(Rf_asReal) STUB(Rf_ScalarReal) STUB(BODY)
STUB(CLOENV) STUB(ENCLOS) STUB(R_IsNamespaceEnv) STUB(R_NamespaceEnvSpec) STUB(Rf_findVarInFrame) STUB(R_ExternalPtrTag)
STUB(Rf_mkString) STUB(Rf_duplicate) STUB(SET_CLOENV) STUB(PRSEEN) STUB(PRCODE) STUB(VECTOR_ELT) STUB(PRENV)
#endif
int main(void) {
  void (*arm)(int *, char **, double *) = (void (*)(int *, char **, double *))dlsym(RTLD_DEFAULT, "jube_capsule_arm");
  char buffer[512] = "", *report = buffer;
  int status = -1;
  double deadline = 60;
  if (arm) arm(&status, &report, &deadline);
  printf("status=%d report=%s", status, report);
#ifdef TABLE
  int patched = 0;
  for (FUNTAB *e = R_FunTab; e->name; e++) patched += e->cfun != (void *)&original;
  printf(" patched=%d\n", patched);
  fflush(stdout);
  /* Armed (1) or without the capsule (-1): a memory write to the first entry after the padding,
   * as an exploit putting an entry back would make. */
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
async function standIn(name: string, entries: ReadonlyArray<[string, number]> | undefined, api = false, contextFlag = 64): Promise<string> {
  const folder = join(dir, name);
  await execa('mkdir', ['-p', folder]);
  const source = join(folder, 'r.c');
  writeFileSync(source, SOURCE);
  const binary = join(folder, 'R');
  const table = entries ? ['-DTABLE', `-DENTRIES=${entries.map(([n, a]) => `{"${n}", &original, 0, 11, ${a}, {0, 0, 0}},`).join('')}`] : [];
  await execa('cc', ['-O1', '-rdynamic', ...table, ...(api ? ['-DAPI', `-DCONTEXT_FLAG=${contextFlag}`] : []), '-o', binary, source, '-ldl']);
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
    env: { PATH: '/usr/bin:/bin', LD_PRELOAD: preload, JUBE_R_CAPSULE_WORKDIR: workdir, JUBE_R_CAPSULE_KERNEL: 'off', LD_BIND_NOW: '1' },
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

describe('arming inside R without what the table needs', () => {
  it('refuses to arm when R\'s API functions cannot be found, and patches nothing', async () => {
    const binary = await standIn('no-api', ENTRIES);
    expect(await arm(binary)).toBe('status=0 report=preload=unavailable(dispatch: R lacks Rf_errorcall) patched=0');
  });

  it('refuses to arm when R\'s call contexts do not read as the capsule\'s layout, and patches nothing', async () => {
    const binary = await standIn('bad-context', ENTRIES, true, 4);
    expect(await arm(binary)).toBe('status=0 report=preload=unavailable(dispatch: R\'s call contexts have an unknown layout) patched=0');
  });

  it('refuses to arm an R that exports no R_FunTab', async () => {
    expect(await arm(await standIn('no-table', undefined, true))).toBe('status=0 report=preload=unavailable(dispatch: R_FunTab is not exported by libR)');
  });

  it('refuses to arm when an entry is missing, and patches none of the others', async () => {
    const binary = await standIn('no-mkcode', ENTRIES.filter(([n]) => n !== 'mkCode'), true);
    expect(await arm(binary)).toBe('status=0 report=preload=unavailable(dispatch: R_FunTab lacks mkCode) patched=0');
  });

  it('refuses to arm when an entry does not read as R\'s layout (its arity differs)', async () => {
    const binary = await standIn('bad-arity', ENTRIES.map(([n, a]) => [n, n === 'inspect' ? 7 : a] as [string, number]), true);
    expect(await arm(binary)).toBe('status=0 report=preload=unavailable(dispatch: R_FunTab has an unexpected entry for inspect) patched=0');
  });
});

describe('arming inside R with everything found', () => {
  it('patches every entry and seals the table\'s own pages: a memory write putting one back faults', async () => {
    const run = await armed(await standIn('complete', ENTRIES, true));
    expect(run.stdout).toMatch(
      new RegExp(`^status=1 report=preload=armed landlock=off seccomp=off dispatch=patched\\(refused=${REFUSED},fenced=${ENTRIES.length - REFUSED},sealed=${ENTRIES.length}/${ENTRIES.length}\\) got=sealed\\(objects=\\d+,slots=\\d+/\\d+\\) patched=${ENTRIES.length}$`),
    );
    expect(run.signal).toBe('SIGSEGV');
  });

  it('the control: without the capsule the same write goes through', async () => {
    const run = await armed(await standIn('complete-control', ENTRIES, true), '');
    expect(run).toEqual({ stdout: 'status=-1 report= patched=0\nwrote', signal: undefined });
  });
});
