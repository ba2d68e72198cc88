/**
 * The hostile corpus, run in R: every capability attack crossed with every route by which R code
 * has been found to reach a function (the name layer's thirteen routes, bytecode-free
 * evaluators, restarts, promises, finalizers, package evaluators, S4 and R6 methods, ...). The
 * script owns its R process (the escaped runner: no static check), in both postures: the capsule
 * alone (Lambda) and with Landlock and seccomp. Names are advice; what must hold is that no
 * attack has its effect: no command runs (no mark appears outside the workdir), no connection
 * reaches the test's listener, no signal reaches the test's sleeper, and no attack's block runs
 * past its capability call (its "leak" marker is never recorded). A control without the capsule
 * shows the corpus does detect each attack.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { attackTargets } from './attack-targets.ts';
import { readContainment } from '../../../functions/execute/run/containment.ts';
import { harness } from '../helpers.ts';

const targets = attackTargets('jube-r-hostile-marks-', 600);
const { marks } = targets;
const secret = join(mkdtempSync(join(tmpdir(), 'jube-r-hostile-secret-')), 'secret.txt');
writeFileSync(secret, 'hostile-corpus-secret\n');
const BLAS = ['/usr/lib/x86_64-linux-gnu/libblas.so.3', '/usr/lib/aarch64-linux-gnu/libblas.so.3', '/usr/lib/libblas.so.3'].find(existsSync)!;
afterAll(() => rmSync(join(secret, '..'), { recursive: true, force: true }));

interface Payload {
  readonly id: string;
  /** The function, and its package when it is not base R's. */
  readonly fn: string;
  readonly pkg?: string;
  readonly args: () => string;
  /** What makes the capability happen once the call returned (open a connection, check a result). */
  readonly then?: string;
}

/** One attack per capability: the call that would do harm, with arguments it would accept. */
const PAYLOADS: readonly Payload[] = [
  { id: 'system', fn: 'system', args: () => `"touch ${marks}/system"` },
  { id: 'system2', fn: 'system2', args: () => `"touch", "${marks}/system2"` },
  { id: 'pipe', fn: 'pipe', args: () => `"touch ${marks}/pipe"`, then: 'open(v)' },
  { id: 'mcparallel', fn: 'mcparallel', pkg: 'parallel', args: () => 'Sys.sleep(0)', then: 'parallel::mccollect(v)' },
  { id: 'mclapply', fn: 'mclapply', pkg: 'parallel', args: () => '1:2, identity, mc.cores = 2L' },
  { id: 'socket', fn: 'socketConnection', args: () => `"127.0.0.1", ${targets.port}, timeout = 2` },
  { id: 'url', fn: 'url', args: () => `"http://127.0.0.1:${targets.port}/"`, then: 'open(v)' },
  { id: 'file-url', fn: 'file', args: () => `"http://127.0.0.1:${targets.port}/"`, then: 'open(v)' },
  { id: 'download', fn: 'download.file', args: () => `"http://127.0.0.1:${targets.port}/", "dl", quiet = TRUE` },
  { id: 'write-outside', fn: 'writeLines', args: () => `"x", "${marks}/write"` },
  { id: 'read-outside', fn: 'readLines', args: () => `"${secret}"` },
  { id: 'maps', fn: 'readLines', args: () => '"/proc/self/maps"' },
  { id: 'mem', fn: 'readBin', args: () => '"/proc/self/mem", "raw", 8L' },
  { id: 'cmpfun', fn: 'cmpfun', pkg: 'compiler', args: () => 'function(x) x + 1' },
  { id: 'dyn.load', fn: 'dyn.load', args: () => `"${BLAS}"` },
  { id: 'dotC', fn: '.C', args: () => '"dcopy_", 2L, c(1, 2), 1L, double(2), 1L' },
  { id: 'dotCall', fn: '.Call', args: () => 'stats:::C_cor, c(1, 2, 3), c(1, 2, 4), 1L, FALSE' },
  { id: 'unserialize', fn: 'unserialize', args: () => 'serialize(quote(x), NULL)' },
  { id: 'setenv', fn: 'Sys.setenv', args: () => 'GCONV_PATH = "."' },
  { id: 'pskill', fn: 'pskill', pkg: 'tools', args: () => `${targets.sleeperPid}L, 9L`, then: 'if (!isTRUE(v)) stop("not sent")' },
];

const qualified = (p: Payload): string => (p.pkg ? `${p.pkg}::${p.fn}` : p.fn === '.C' || p.fn === '.Call' ? p.fn : `base::\`${p.fn}\``);
const rString = (s: string): string => JSON.stringify(s);

/** The routes by which a call's function is reached: each gives the call's text. */
const HEADS: Readonly<Record<string, (p: Payload) => string>> = {
  direct: (p) => `${p.pkg ? `${p.pkg}::` : ''}${p.fn}(${p.args()})`,
  get: (p) => `get(${rString(p.fn)}, envir = ${p.pkg ? `asNamespace("${p.pkg}")` : 'baseenv()'})(${p.args()})`,
  'get0-computed': (p) => `get0(paste0(${rString(p.fn.slice(0, 1))}, ${rString(p.fn.slice(1))}), envir = ${p.pkg ? `asNamespace("${p.pkg}")` : 'baseenv()'})(${p.args()})`,
  'match.fun': (p) => `match.fun(${p.pkg ? qualified(p) : rString(p.fn)})(${p.args()})`,
  'do.call-string': (p) => (p.pkg ? `do.call(${qualified(p)}, list(${p.args()}))` : `do.call(${rString(p.fn)}, list(${p.args()}))`),
  'do.call-value': (p) => `do.call(${qualified(p)}, list(${p.args()}))`,
  'eval-parse': (p) => `eval(parse(text = ${rString(HEADS['direct']!(p))}))`,
  'str2lang-baseenv': (p) => `eval(str2lang(${rString(HEADS['direct']!(p))}), baseenv())`,
  'restart-handler': (p) => `withRestarts(invokeRestart("r", ${p.args()}), r = list(handler = ${p.pkg ? qualified(p) : `paste0(${rString(p.fn)})`}))`,
  'namespace-closure': (p) => `local({ f <- function() ${HEADS['direct']!(p)}; environment(f) <- asNamespace("stats"); f() })`,
  'Reduce-value': (p) => `Reduce(function(a, b) ${HEADS['direct']!(p)}, 1:2)`,
  'lapply-lambda': (p) => `lapply(1, function(i) ${HEADS['direct']!(p)})[[1]]`,
};

/** The places a whole attack block runs from: each wraps the block's text. */
const PLACES: Readonly<Record<string, (block: string) => string>> = {
  'promise': (b) => `delayedAssign("p", ${b}); p`,
  'on.exit': (b) => `(function() { on.exit(${b}); invisible(NULL) })()`,
  'finally': (b) => `tryCatch(NULL, finally = ${b})`,
  'calling-handler': (b) => `withCallingHandlers(warning("w"), warning = function(w) { ${b}; invokeRestart("muffleWarning") })`,
  'finalizer': (b) => `{ reg.finalizer(new.env(), function(e) ${b}, onexit = FALSE); invisible(gc()) }`,
  'S4-method': (b) => `{ methods::setGeneric("jubeAttack", function(x) standardGeneric("jubeAttack")); methods::setMethod("jubeAttack", "numeric", function(x) ${b}); jubeAttack(1) }`,
  'R6-method': (b) => `R6::R6Class("Attack", public = list(go = function() ${b}))$new()$go()`,
  'dplyr-mutate': (b) => `dplyr::mutate(data.frame(a = 1), b = { ${b}; 1 })`,
  'data.table-j': (b) => `data.table::data.table(a = 1)[, { ${b}; 1 }]`,
  'purrr-map': (b) => `purrr::map(1, function(i) ${b})`,
  'model.frame': (b) => `stats::model.frame(y ~ x, data.frame(x = 1, y = 2), subset = { ${b}; TRUE })`,
  'ave-FUN': (b) => `ave(1, 1, FUN = function(x) { ${b}; x })`,
};

interface Case {
  readonly id: string;
  readonly code: string;
}

function cases(): Case[] {
  const out: Case[] = [];
  for (const p of PAYLOADS) {
    const block = (call: string, id: string) =>
      `{ v <- ${call}; ${p.then ?? 'invisible(v)'}; .leaks <<- c(.leaks, ${rString(id)}) }`;
    for (const [head, build] of Object.entries(HEADS)) out.push({ id: `${p.id}/${head}`, code: block(build(p), `${p.id}/${head}`) });
    for (const [place, wrap] of Object.entries(PLACES)) out.push({ id: `${p.id}/${place}`, code: wrap(block(HEADS['direct']!(p), `${p.id}/${place}`)) });
  }
  return out;
}

/** The corpus as one script: each case in its own tryCatch, then what leaked and how many ran. */
function corpusScript(list: readonly Case[]): string {
  return [
    '.leaks <- character()',
    '.done <- 0L',
    'saveRDS(1, "x.rds")',
    ...list.map((c) => `tryCatch({ ${c.code} }, error = function(e) NULL)\n.done <- .done + 1L`),
    'cat("@@done", .done, "\\n")',
    'cat("@@leaks", paste(sort(unique(.leaks)), collapse = ","), "\\n")',
  ].join('\n');
}

/**
 * The one route the corpus finds through, by design: model.frame() (stats) evaluates the script's
 * subset= expression as stats' own code, so stats vouches for a routine of its own called there.
 * What a package's code evaluates may reach that package's routines, with values the script chose,
 * as calling the package's functions does; no other package's, no capability (docs/threat-model.md,
 * "Native code only as packages ship it").
 */
const OWN_ROUTINE_THROUGH_ITS_EVALUATOR = ['dotCall/model.frame'];

const field = (output: string, key: string): string =>
  output.split('\n').find((l) => l.startsWith(`@@${key} `))?.slice(key.length + 3).trim() ?? '';

describe.each([
  { posture: 'capsule alone, no bubblewrap (the Lambda posture)', kernel: 'off' as const },
  { posture: 'capsule with Landlock and seccomp, no bubblewrap', kernel: 'auto' as const },
])('the hostile corpus, $posture', ({ kernel }) => {
  it('gives no escape: no command, connection, signal, outside write or read, and no block runs past its call', async () => {
    // Prepare
    const capsule = readContainment().capsule!;
    const h = harness({ namespaces: 'none', containment: { testEscapedRunner: true, capsule: { ...capsule, kernel } } });
    const list = cases();
    const before = targets.connections;
    // Act
    const response = await h.run(corpusScript(list), { timeoutSeconds: 240 });
    // Assess
    expect(field(response.consoleOutput, 'done'), response.error ?? '').toBe(String(list.length));
    expect(field(response.consoleOutput, 'leaks')).toBe(OWN_ROUTINE_THROUGH_ITS_EVALUATOR.join(','));
    expect(readdirSync(marks)).toEqual([]);
    expect(targets.connections).toBe(before);
    expect(() => process.kill(targets.sleeperPid, 0)).not.toThrow();
    expect(response.consoleOutput).not.toContain('hostile-corpus-secret');
    expect(h.reports.at(-1)!.capsule).toMatch(/^preload=armed .* dispatch=patched\(/);
  }, 300_000);
});

describe('the control: the same corpus without the capsule', () => {
  it('has each attack take effect by the direct route, so the assertions above can tell containment from its absence', async () => {
    // Prepare: the signal payload would end the sleeper the other tests watch.
    const h = harness({ namespaces: 'none', containment: { testEscapedRunner: true, capsule: undefined } });
    const direct = cases().filter((c) => c.id.endsWith('/direct') && !c.id.startsWith('pskill/'));
    const before = targets.connections;
    // Act
    const response = await h.run(corpusScript(direct), { timeoutSeconds: 120 });
    // Assess: every attack ran past its call, but the HTTP ones, which the listener (it answers
    // nothing) makes fail after connecting: those count as the targets.connections they made.
    const http = ['url/direct', 'file-url/direct', 'download/direct'];
    const leaks = field(response.consoleOutput, 'leaks').split(',');
    expect(leaks).toEqual(expect.arrayContaining(direct.map((c) => c.id).filter((id) => !http.includes(id))));
    expect(targets.connections - before).toBeGreaterThanOrEqual(1 + http.length);
    expect(readdirSync(marks).sort()).toEqual(['pipe', 'system', 'system2', 'write']);
    for (const mark of readdirSync(marks)) rmSync(join(marks, mark));
  }, 180_000);
});
