/**
 * The capability table's rows in R's dispatch table (r-image/capsule/dispatch.c), in real R, in the
 * Lambda posture (kernel layers off): once armed, the bytecode builders and address leaks refuse,
 * and the deserializers read nothing but R's installed libraries, however they are reached:
 * directly, with the re-validation off (JUBE_R_TEST_ESCAPED_RUNNER), through a package wrapper, from
 * a closure whose environment is globalenv(), or as the first step of a validated script's chain
 * through the real execute handler. Each has a control where the capsule is not armed and the same
 * call works.
 */
import { describe, expect, it } from 'vitest';
import { readContainment } from '../../../functions/execute/run/containment.ts';
import { loadManifest } from '../../../layers/packages/manifest.ts';
import { loadRules } from '../../../layers/rules/rules.ts';
import { manifestPackages } from '../../../layers/validator/package-lists.ts';
import { loadValidator } from '../../../layers/validator/validator.ts';
import { harness } from '../helpers.ts';
import { runArmed } from './armed-r.ts';

/** runArmed with the capsule loaded but not preloaded: arming fails, so nothing is patched. */
const UNARMED = { LD_PRELOAD: '' };

const refusedAs = (name: string) =>
  new RegExp(`^refused: jube-r: ${name.replace('.', '\\.')} builds bytecode, reveals an address or changes memory protection: R's bytecode builders`);
const fencedAs = (name: string) =>
  new RegExp(`^refused: jube-r: ${name} deserializes R objects: R objects are read back only from installed packages' files here .*\\(its source is `);

/**
 * Each removed entry, reached directly with arguments it would otherwise accept. A bytecode object
 * to pass: a package function's own, where bodyCode still works (unarmed).
 */
const BYTECODE = 'code <- tryCatch(.Internal(bodyCode(stats::sd)), error = function(e) quote(x))';
const REMOVED: ReadonlyArray<{ name: string; call: string; control: RegExp }> = [
  { name: 'mkCode', call: 'typeof(.Internal(mkCode(c(12L, 1L), list(NULL))))', control: /^ok: bytecode$/ },
  { name: 'bcClose', call: 'typeof(.Internal(bcClose(formals(function(x) x), code, globalenv())))', control: /^ok: closure$/ },
  { name: 'bodyCode', call: 'typeof(.Internal(bodyCode(stats::sd)))', control: /^ok: bytecode$/ },
  { name: 'disassemble', call: 'length(.Internal(disassemble(code)))', control: /^ok: \d+$/ },
  { name: 'bcVersion', call: '.Internal(bcVersion())', control: /^ok: \d+$/ },
  { name: 'is.builtin.internal', call: '.Internal(is.builtin.internal(as.name("paste0")))', control: /^ok: (TRUE|FALSE)$/ },
  { name: 'inspect', call: 'capture.output(.Internal(inspect(1)))', control: /^ok: @[0-9a-f]+ /i },
  { name: 'address', call: 'capture.output(print(.Internal(address(1:3))))', control: /^ok: <pointer: 0x[0-9a-f]+>$/ },
  { name: 'tracemem', call: 'tracemem(c(1, 2))', control: /^ok: <0x[0-9a-f]+>$|^refused: R was not compiled/ },
  { name: 'retracemem', call: 'retracemem(c(1, 2), "<0x1>")', control: /^ok: |^refused: R was not compiled/ },
];

describe('refused in the dispatch table: the bytecode builders and the address leaks', () => {
  const code = [BYTECODE, ...REMOVED.map(({ name, call }) => `probe("${name}", ${call})`)].join('\n');

  it('each refuses when reached directly, and the report says the table is patched', async () => {
    const run = await runArmed(
      [
        code,
        // The compiler is built on these: it fails at the first one it calls.
        'probe("cmpfun", compiler::cmpfun(function(x) x + 1))',
        // Where the call is made changes nothing: the entry itself is replaced.
        'probe("from-globalenv-closure", { f <- function() .Internal(mkCode(c(12L, 1L), list(NULL))); environment(f) <- globalenv(); f() })',
        'probe("saved-binding", { internal <- get(".Internal", baseenv()); internal(inspect(1)) })',
      ].join('\n'),
      { kernel: 'off' },
    );
    expect(run.report).toMatch(/^preload=armed landlock=off seccomp=off dispatch=patched\(refused=\d+,fenced=\d+,sealed=\d+\/\d+\) got=sealed\(/);
    for (const { name } of REMOVED) expect(run.probes[name], name).toMatch(refusedAs(name));
    expect(run.probes['cmpfun']).toMatch(/^refused: jube-r: (bcVersion|mkCode) builds bytecode/);
    expect(run.probes['from-globalenv-closure']).toMatch(refusedAs('mkCode'));
    expect(run.probes['saved-binding']).toMatch(refusedAs('inspect'));
  });

  it('the control: unarmed, the same calls build bytecode and print addresses', async () => {
    const run = await runArmed(code, { kernel: 'off', env: UNARMED });
    expect(run.report).toMatch(/^preload=unavailable/);
    for (const { name, control } of REMOVED) expect(run.probes[name], name).toMatch(control);
  });

  it('leaves packages\' precompiled bytecode running', async () => {
    const run = await runArmed(
      [
        'probe("sd-is-bytecode", any(grepl("<bytecode", capture.output(print(stats::sd)))))',
        'probe("sd", sd(c(1, 2, 3)))',
        'probe("dplyr", { suppressPackageStartupMessages(library(dplyr)); nrow(filter(mtcars, cyl == 4)) })',
      ].join('\n'),
      { kernel: 'off' },
    );
    expect(run.probes).toEqual({ 'sd-is-bytecode': 'ok: TRUE', sd: 'ok: 1', dplyr: 'ok: 11' });
  });
});

/** Files in the workdir, written after arming (the workdir is writable), then read back. */
const FIXTURES = [
  'x <- 1:3',
  'saveRDS(function() "ran", "f.rds")',
  'save(x, file = "x.rda")',
  'suppressWarnings(save(x, file = "v1.rda", version = 1))',
  'dir.create("pkg/Meta", recursive = TRUE)',
  'saveRDS(list(DESCRIPTION = c(Package = "pkg", Version = "6.6.6")), "pkg/Meta/package.rds")',
  'db <- new.env(); assign("y", 42, db); tools:::makeLazyLoadDB(db, file.path(getwd(), "db"))',
  'file.symlink(file.path(R.home("library"), "stats", "Meta", "package.rds"), "link.rds")',
  'wd <- getwd()',
].join('\n');

/** Each reads a file the script wrote: label -> the internal that must refuse it. */
const DESERIALIZERS: ReadonlyArray<{ label: string; call: string; internal: string; control: RegExp }> = [
  { label: 'readRDS', call: 'readRDS("f.rds")()', internal: 'unserializeFromConn', control: /^ok: ran$/ },
  { label: 'readRDS-absolute', call: 'readRDS(file.path(wd, "f.rds"))()', internal: 'unserializeFromConn', control: /^ok: ran$/ },
  { label: 'readRDS-connection', call: '{ con <- gzfile(file.path(wd, "f.rds"), "rb"); on.exit(close(con)); readRDS(con)() }', internal: 'unserializeFromConn', control: /^ok: ran$/ },
  { label: 'readr', call: 'readr::read_rds("f.rds")()', internal: 'unserializeFromConn', control: /^ok: ran$/ },
  { label: 'packageDescription', call: 'utils::packageDescription("pkg", lib.loc = ".")$Version', internal: 'unserializeFromConn', control: /^ok: 6\.6\.6$/ },
  { label: 'packageDescription-absolute', call: 'utils::packageDescription("pkg", lib.loc = wd)$Version', internal: 'unserializeFromConn', control: /^ok: 6\.6\.6$/ },
  { label: 'unserialize-raw', call: 'unserialize(serialize(1:3, NULL))', internal: 'unserialize', control: /^ok: 1 2 3$/ },
  { label: 'unserialize-rawConnection', call: 'unserialize(rawConnection(serialize(1:3, NULL)))', internal: 'unserialize', control: /^ok: 1 2 3$/ },
  { label: 'load', call: '{ e <- new.env(); load("x.rda", envir = e); e$x }', internal: 'loadFromConn2', control: /^ok: 1 2 3$/ },
  { label: 'load-old-format', call: '{ e <- new.env(); suppressWarnings(load("v1.rda", envir = e)); e$x }', internal: 'load', control: /^ok: 1 2 3$/ },
  { label: 'lazyLoad', call: '{ e <- new.env(); lazyLoad(file.path(wd, "db"), envir = e); e$y }', internal: 'unserializeFromConn', control: /^ok: 42$/ },
  {
    label: 'lazyLoadDBfetch',
    // The key comes from the database's index, which only an unarmed process can read back.
    call: '{ key <- tryCatch(readRDS(file.path(wd, "db.rdx"))$variables$y, error = function(e) c(0L, 10L)); lazyLoadDBfetch(key, file.path(wd, "db.rdb"), TRUE, identity) }',
    internal: 'lazyLoadDBfetch',
    control: /^ok: 42$/,
  },
  { label: 'infoRDS', call: 'infoRDS(file.path(wd, "f.rds"))$version', internal: 'serializeInfoFromConn', control: /^ok: 3$/ },
  { label: 'symlink-to-library', call: 'length(readRDS(file.path(wd, "link.rds")))', internal: 'unserializeFromConn', control: /^ok: \d+$/ },
  {
    label: 'dot-dot-out-of-library',
    call: 'readRDS(paste0(R.home("library"), paste(rep("/..", 12), collapse = ""), wd, "/f.rds"))()',
    internal: 'unserializeFromConn',
    control: /^ok: ran$/,
  },
  { label: 'gzcon-of-library-file', call: 'length(readRDS(gzcon(file(file.path(R.home("library"), "stats", "Meta", "package.rds"), "rb"))))', internal: 'unserializeFromConn', control: /^ok: \d+$/ },
  { label: 'from-globalenv-closure', call: '{ g <- function() readRDS("f.rds"); environment(g) <- globalenv(); g()() }', internal: 'unserializeFromConn', control: /^ok: ran$/ },
];

describe('fenced in the dispatch table: the deserializers read only R\'s installed libraries', () => {
  const code = [FIXTURES, ...DESERIALIZERS.map(({ label, call }) => `probe("${label}", ${call})`)].join('\n');

  it('each refuses a file the script wrote, however it is reached', async () => {
    const run = await runArmed(code, { kernel: 'off' });
    expect(run.report, run.stderr).toMatch(/dispatch=patched/);
    for (const { label, internal } of DESERIALIZERS) expect(run.probes[label], label).toMatch(fencedAs(internal));
  });

  it('the control: unarmed, the same calls deserialize the script\'s bytes', async () => {
    const run = await runArmed(code, { kernel: 'off', env: UNARMED });
    expect(run.report).toMatch(/^preload=unavailable/);
    for (const { label, control } of DESERIALIZERS) expect(run.probes[label], label).toMatch(control);
  });

  it('still reads R\'s installed libraries: namespaces, their data, their metadata', async () => {
    const run = await runArmed(
      [
        'probe("readRDS-library", names(readRDS(file.path(R.home("library"), "stats", "Meta", "package.rds")))[[1]])',
        'probe("packageDescription", utils::packageDescription("MASS")$Package)',
        'probe("loadNamespace", { suppressPackageStartupMessages(library(MASS)); nrow(Boston) })',
        'probe("data", { data(Cars93, package = "MASS", envir = environment()); nrow(Cars93) })',
        'probe("infoRDS", infoRDS(file.path(R.home("library"), "stats", "Meta", "package.rds"))$version %in% 2:3)',
        'probe("help-db", length(tools::Rd_db("MASS")) > 10)',
        'probe("load-library-rda", { e <- new.env(); f <- list.files(file.path(find.package("survival"), "data"), full.names = TRUE); if (length(f) && grepl("rda$|RData$", f[1])) { load(f[1], envir = e); length(ls(e)) > 0 } else TRUE })',
      ].join('\n'),
      { kernel: 'off' },
    );
    expect(run.probes).toEqual({
      'readRDS-library': 'ok: DESCRIPTION',
      packageDescription: 'ok: MASS',
      loadNamespace: 'ok: 506',
      data: 'ok: 93',
      infoRDS: 'ok: TRUE',
      'help-db': 'ok: TRUE',
      'load-library-rda': 'ok: TRUE',
    });
  });
});

/** R probes for a script the runner runs: one line per label, as runArmed's probe() prints. */
const SCRIPT_PROBE = String.raw`probe <- function(label, expr) cat("@@probe ", label, "\t", tryCatch({ value <- expr; paste("ok:", paste(format(value), collapse = " ")) }, error = function(e) paste("refused:", conditionMessage(e))), "\n", sep = "")`;

function probesOf(output: string): Record<string, string> {
  const probes: Record<string, string> = {};
  for (const line of output.split('\n')) {
    if (!line.startsWith('@@probe ')) continue;
    const [label, outcome] = line.slice('@@probe '.length).split('\t');
    probes[label!] = outcome ?? '';
  }
  return probes;
}

describe('an escaped script (no re-validation), through the execute handler', () => {
  const capsule = readContainment().capsule!;
  const escaped = harness({ namespaces: 'none', containment: { testEscapedRunner: true, capsule: { ...capsule, kernel: 'off' } } });
  const uncontained = harness({ namespaces: 'none', containment: { testEscapedRunner: true, capsule: undefined } });
  const script = [
    SCRIPT_PROBE,
    FIXTURES,
    BYTECODE,
    'probe("jit", compiler::enableJIT(-1L))',
    ...REMOVED.filter(({ name }) => ['mkCode', 'inspect', 'address', 'tracemem'].includes(name)).map(({ name, call }) => `probe("${name}", ${call})`),
    ...DESERIALIZERS.filter(({ label }) => ['readRDS', 'readr', 'packageDescription', 'unserialize-raw', 'load', 'from-globalenv-closure'].includes(label)).map(
      ({ label, call }) => `probe("${label}", ${call})`,
    ),
    'cat("done\\n")',
  ].join('\n');

  it('refuses every removed internal and every deserializer of the script\'s files; the JIT cannot be turned on', async () => {
    const response = await escaped.run(script, { timeoutSeconds: 30 });
    const probes = probesOf(response.consoleOutput);
    expect(response.consoleOutput).toContain('done');
    expect(escaped.reports.at(-1)!.capsule).toMatch(/dispatch=patched/);
    // The JIT compiles through mkCode: it stays off, and turning it on is refused.
    expect(probes['jit']).toMatch(refusedAs('enableJIT'));
    for (const name of ['mkCode', 'inspect', 'address', 'tracemem']) expect(probes[name], name).toMatch(refusedAs(name));
    for (const label of ['readRDS', 'readr', 'packageDescription', 'load', 'from-globalenv-closure']) {
      expect(probes[label], label).toMatch(/^refused: jube-r: (unserializeFromConn|loadFromConn2) deserializes R objects/);
    }
    expect(probes['unserialize-raw']).toMatch(fencedAs('unserialize'));
  });

  it('the control: without the capsule the same script builds bytecode and runs the script\'s closure', async () => {
    const response = await uncontained.run(script, { timeoutSeconds: 30 });
    const probes = probesOf(response.consoleOutput);
    expect(probes['mkCode']).toBe('ok: bytecode');
    expect(probes['readRDS']).toBe('ok: ran');
    expect(probes['packageDescription']).toBe('ok: 6.6.6');
    expect(probes['from-globalenv-closure']).toBe('ok: ran');
  });
});

const validator = await loadValidator({ rules: loadRules(), ...manifestPackages(loadManifest()) });

describe('a validated script\'s chain is refused at its first step', () => {
  const capsule = readContainment().capsule!;
  const lambda = harness({ validator, namespaces: 'none', containment: { capsule: { ...capsule, kernel: 'off' } } });
  const uncontained = harness({ validator, namespaces: 'none', containment: { capsule: undefined } });

  /**
   * The bytes of a closure whose environment is globalenv(), written by the script itself: a
   * deserialized object can hold code. What it does here is harmless and visible.
   */
  async function closureBytes(): Promise<string> {
    const { execa } = await import('execa');
    const { stdout } = await execa('Rscript', [
      '--vanilla',
      '-e',
      'f <- function() paste("closure over", environmentName(environment(sys.function()))); environment(f) <- globalenv(); cat(as.integer(serialize(f, NULL)), sep = ",")',
    ]);
    return stdout;
  }

  it('readr::read_rds() of a closure the script wrote: refused in the Lambda posture, runs without the capsule', async () => {
    const source = [`writeBin(as.raw(c(${await closureBytes()})), "f.rds")`, 'f <- readr::read_rds("f.rds")', 'cat(f(), "\\n")'].join('\n');
    expect(validator(source).valid).toBe(true);
    const refused = await lambda.run(source, { timeoutSeconds: 30 });
    expect(refused.status).toBe('error');
    expect(refused.error).toMatch(/jube-r: unserializeFromConn deserializes R objects/);
    const control = await uncontained.run(source, { timeoutSeconds: 30 });
    expect(control).toMatchObject({ status: 'ok', consoleOutput: 'closure over R_GlobalEnv \n' });
  });

  it('utils::packageDescription(lib.loc = ".") of a Meta/package.rds the script wrote: refused, read without the capsule', async () => {
    const { execa } = await import('execa');
    const { stdout: bytes } = await execa('Rscript', ['--vanilla', '-e', 'cat(as.integer(serialize(list(DESCRIPTION = c(Package = "x", Version = "6.6.6")), NULL)), sep = ",")']);
    const source = ['dir.create(file.path("x", "Meta"), recursive = TRUE)', `writeBin(as.raw(c(${bytes})), file.path("x", "Meta", "package.rds"))`, 'cat(utils::packageDescription("x", lib.loc = ".")$Version, "\\n")'].join('\n');
    expect(validator(source).valid).toBe(true);
    const refused = await lambda.run(source, { timeoutSeconds: 30 });
    expect(refused.status).toBe('error');
    expect(refused.error).toMatch(/jube-r: unserializeFromConn deserializes R objects/);
    const control = await uncontained.run(source, { timeoutSeconds: 30 });
    expect(control).toMatchObject({ status: 'ok', consoleOutput: '6.6.6 \n' });
  });
});
