/**
 * The capsule (r-image/capsule), armed in real R: a script that owns its R process calls the real
 * primitives directly and each one fails, in both postures: with the kernel layers (Landlock and
 * seccomp, where this host grants no_new_privs, as locally and in a self-hosted container) and
 * without them (JUBE_R_CAPSULE_KERNEL=off: the interposition layer alone, as in AWS Lambda).
 * Every attack aims at something real that the test watches: a listening socket, a live process,
 * decoy files outside the workdir, another run's workdir.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadManifest } from '../../../layers/packages/manifest.ts';
import { runArmed, type KernelLayers } from './armed-r.ts';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const rulesFile = join(repoRoot, 'layers/rules/script-rules.json');

/** Things outside any workdir an escaped script would go for. */
interface Targets {
  readonly dir: string;
  readonly decoy: string;
  readonly otherWorkdir: string;
  readonly otherSecret: string;
  readonly foreignSo: string;
  readonly server: Server;
  readonly port: number;
  connections: number;
  readonly sleeper: ChildProcess;
}

let targets: Targets;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jube-r-capsule-targets-'));
  const decoy = join(dir, 'Rprofile.site');
  writeFileSync(decoy, 'original\n');
  const otherWorkdir = mkdtempSync(join(tmpdir(), 'jube-r-other-run-'));
  const otherSecret = join(otherWorkdir, 'secret.txt');
  writeFileSync(otherSecret, 'another run\n');
  // A shared object R itself ships, copied where a script could have written one.
  const statsSo = join(await rLibrary('stats'), 'libs', 'stats.so');
  const foreignSo = join(dir, 'evil.so');
  copyFileSync(statsSo, foreignSo);
  const partial = { connections: 0 };
  const server = createServer((socket) => {
    partial.connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  // A process the script must not be able to signal, carrying a secret in its environment.
  const sleeper = spawn('sleep', ['300'], { env: { PATH: process.env['PATH'], JUBE_CANARY: 'canary-secret-4711' }, stdio: 'ignore' });
  targets = Object.assign(partial, { dir, decoy, otherWorkdir, otherSecret, foreignSo, server, port, sleeper });
});

afterAll(() => {
  targets.sleeper.kill('SIGKILL');
  targets.server.close();
  rmSync(targets.dir, { recursive: true, force: true });
  rmSync(targets.otherWorkdir, { recursive: true, force: true });
});

async function rLibrary(pkg: string): Promise<string> {
  const { execa } = await import('execa');
  const { stdout } = await execa('Rscript', ['--vanilla', '-e', `cat(find.package("${pkg}"))`]);
  return stdout;
}

const refused = (outcome: string | undefined): boolean => outcome?.startsWith('refused:') ?? false;

describe.each<{ posture: string; kernel: KernelLayers; report: RegExp }>([
  { posture: 'interposition only (the Lambda posture)', kernel: 'off', report: /^preload=armed landlock=off seccomp=off dispatch=patched\(refused=\d+,fenced=\d+,sealed=\d+\/\d+\) got=sealed\(objects=\d+,slots=\d+\/\d+\)$/ },
  { posture: 'with the kernel layers (local, self-hosted)', kernel: 'auto', report: /^preload=armed landlock=abi\d+ seccomp=active dispatch=patched\(refused=\d+,fenced=\d+,sealed=\d+\/\d+\) got=sealed\(objects=\d+,slots=\d+\/\d+\)$/ },
])('capsule armed, $posture', ({ kernel, report }) => {
  it('reports exactly the layers it armed', async () => {
    const run = await runArmed('cat("armed\\n")', { kernel });
    expect(run.report).toMatch(report);
  });

  it('starts no program, through every R route', async () => {
    // Act
    const run = await runArmed(
      [
        'probe("system", system("echo ran > ran-system.txt"))',
        'probe("system-intern", system("echo ran", intern = TRUE))',
        'probe("internal-system", .Internal(system("echo ran > ran-internal.txt", TRUE, 0L)))',
        'probe("system2", system2("sh", c("-c", shQuote("echo ran > ran-system2.txt"))))',
        'probe("pipe", readLines(pipe("echo ran")))',
        'probe("pdf-pipe", { pdf("|cat > ran-pdf.txt"); plot(1); dev.off() })',
        'probe("mcparallel", parallel::mcparallel(1))',
        'probe("mclapply-fork", parallel:::mcfork())',
        'cat("files:", list.files(pattern = "^ran-"), "\\n")',
      ].join('\n'),
      { kernel },
    );
    // Assess
    for (const label of ['system-intern', 'internal-system', 'pipe', 'mcparallel', 'mclapply-fork']) {
      expect(refused(run.probes[label]), `${label}: ${run.probes[label]}`).toBe(true);
    }
    // R's dispatch table refuses system() itself, with the program category's words.
    expect(run.probes['system']).toMatch(/^refused: jube-r: system runs a program: programs cannot run in this sandbox/);
    expect(run.probes['system2']).toMatch(/^refused:|^ok: 127$/);
    expect(run.stdout, run.stdout + run.stderr).toMatch(/^files:\s*$/m);
  });

  it('opens no network socket: nothing reaches a listener on loopback', async () => {
    const before = targets.connections;
    const run = await runArmed(
      [
        `probe("socketConnection", socketConnection("127.0.0.1", ${targets.port}, timeout = 2))`,
        `probe("url", readLines(url("http://127.0.0.1:${targets.port}/")))`,
        `probe("download.file", download.file("http://127.0.0.1:${targets.port}/x", "x", quiet = TRUE))`,
        'probe("dns", utils::nsl("localhost"))',
      ].join('\n'),
      { kernel },
    );
    for (const label of ['socketConnection', 'url', 'download.file']) {
      expect(refused(run.probes[label]), `${label}: ${run.probes[label]}`).toBe(true);
    }
    expect(run.probes['dns']).toMatch(/^refused:|^ok: $|^ok: NULL$/);
    expect(targets.connections).toBe(before);
  });

  it('loads no shared object from outside R\'s libraries, copied to /tmp or into the workdir', async () => {
    const run = await runArmed(
      [
        `probe("dyn.load-tmp", dyn.load("${targets.foreignSo}"))`,
        `probe("read-foreign", file.copy("${targets.foreignSo}", "foreign.so"))`,
        'probe("copy-to-workdir", file.copy(file.path(R.home("library"), "stats", "libs", "stats.so"), "local.so"))',
        'probe("dyn.load-workdir", dyn.load(normalizePath("local.so")))',
        'probe("dyn.load-proc-fd", { con <- file("local.so", "rb"); dyn.load(sprintf("/proc/self/fd/%d", 3L)) })',
        'probe("dyn.load-R-library", { dyn.load(file.path(R.home("library"), "splines", "libs", "splines.so")); "loaded" })',
      ].join('\n'),
      { kernel },
    );
    // dyn.load() refuses in R's dispatch table; dlopen() would refuse it too (capability-chain.test.ts).
    expect(run.probes['dyn.load-tmp']).toMatch(/^refused: jube-r: dyn\.load loads or calls compiled code directly/);
    // Reading a file outside the read roots fails too; R's own objects can be copied in.
    expect(run.probes['read-foreign']).toBe('ok: FALSE');
    expect(run.probes['copy-to-workdir']).toBe('ok: TRUE');
    expect(run.probes['dyn.load-workdir']).toMatch(/^refused: jube-r: dyn\.load loads or calls compiled code directly/);
    expect(refused(run.probes['dyn.load-proc-fd'])).toBe(true);
    // An installed package's own object still loads: library() depends on it.
    expect(run.probes['dyn.load-R-library']).toBe('ok: loaded');
  });

  it('signals no other process', async () => {
    const pid = targets.sleeper.pid!;
    const run = await runArmed(
      [
        `probe("pskill", tools::pskill(${pid}L, 9L))`,
        'probe("pskill-group", tools::pskill(0L, 9L))',
        'probe("self-signal-0", tools::pskill(Sys.getpid(), 0L))',
      ].join('\n'),
      { kernel },
    );
    expect(run.probes['pskill']).toBe('ok: FALSE');
    expect(run.probes['pskill-group']).toBe('ok: FALSE');
    expect(run.probes['self-signal-0']).toBe('ok: TRUE');
    expect(() => process.kill(pid, 0)).not.toThrow();
  });

  it('finds none of those functions by name through R\'s symbol lookups', async () => {
    const run = await runArmed(
      [
        'probe("C-execv", .C("execv", "/bin/sh", character(1)))',
        'probe("C-system", .C("system", "echo ran"))',
        'probe("symbol-syscall", getNativeSymbolInfo("syscall"))',
        'probe("symbol-dlopen", getNativeSymbolInfo("dlopen"))',
        'probe("symbol-libc-exit", .C("exit", 1L))',
        'probe("symbol-libR", .C("R_system", "echo ran"))',
        'probe("registered-routine", is.complex(stats::fft(1:8)))',
      ].join('\n'),
      { kernel },
    );
    for (const label of ['C-execv', 'C-system', 'symbol-syscall', 'symbol-dlopen', 'symbol-libc-exit', 'symbol-libR']) {
      expect(refused(run.probes[label]), `${label}: ${run.probes[label]}`).toBe(true);
    }
    expect(run.probes['registered-routine']).toBe('ok: TRUE');
  });

  it('writes nothing outside its workdir, however it names the place', async () => {
    const decoy = targets.decoy;
    const run = await runArmed(
      [
        `probe("overwrite", writeLines("owned", "${decoy}"))`,
        `probe("append", cat("owned", file = "${decoy}", append = TRUE))`,
        `probe("relative", writeLines("owned", file.path("..", "${basename(targets.dir)}", "Rprofile.site")))`,
        `probe("via-proc-root", writeLines("owned", "/proc/self/root${decoy}"))`,
        `probe("symlink-then-write", { file.symlink("${decoy}", "link"); writeLines("owned", "link") })`,
        `probe("hardlink", file.link("${decoy}", "hard"))`,
        `probe("rename-over", { writeLines("owned", "mine"); file.rename("mine", "${decoy}") })`,
        `probe("unlink", { unlink("${decoy}"); file.exists("${decoy}") })`,
        `probe("chmod", Sys.chmod("${decoy}", "777"))`,
        `probe("create", file.create("${join(targets.dir, 'planted')}"))`,
        `probe("mkdir", dir.create("${join(targets.dir, 'planted-dir')}"))`,
        `probe("rules-append", { con <- file("${rulesFile}", "a"); close(con) })`,
        'probe("rprofile-site-append", { con <- file(file.path(R.home("etc"), "Rprofile.site"), "a"); close(con) })',
        'probe("package-append", { con <- file(file.path(find.package("jsonlite"), "DESCRIPTION"), "a"); close(con) })',
        'probe("shm", writeLines("x", "/dev/shm/jube-r-capsule-test"))',
        'probe("var-tmp", writeLines("x", "/var/tmp/jube-r-capsule-test"))',
        'probe("workdir", { writeLines("fine", "inside.txt"); dir.create("a/b", recursive = TRUE); readLines("inside.txt") })',
      ].join('\n'),
      { kernel },
    );
    for (const label of ['overwrite', 'append', 'relative', 'via-proc-root', 'symlink-then-write', 'hardlink', 'rename-over', 'chmod', 'create', 'mkdir', 'rules-append', 'rprofile-site-append', 'package-append', 'shm', 'var-tmp']) {
      expect(run.probes[label], label).toMatch(/^refused:|^ok: FALSE$/);
    }
    // The decoy is still there (read back below), but a path outside the readable roots does not
    // even say that it exists.
    expect(run.probes['unlink']).toBe('ok: FALSE');
    expect(run.probes['workdir']).toBe('ok: fine');
    expect(readFileSync(decoy, 'utf8')).toBe('original\n');
    expect((statSync(decoy).mode & 0o777).toString(8)).not.toBe('777');
    expect(existsSync(join(targets.dir, 'planted'))).toBe(false);
    expect(existsSync(join(targets.dir, 'planted-dir'))).toBe(false);
    expect(existsSync('/dev/shm/jube-r-capsule-test')).toBe(false);
    expect(existsSync('/var/tmp/jube-r-capsule-test')).toBe(false);
  });

  it('reads neither another run\'s workdir nor another process\'s /proc entries nor the service\'s files', async () => {
    const pid = targets.sleeper.pid!;
    const run = await runArmed(
      [
        `probe("other-workdir", readLines("${targets.otherSecret}"))`,
        `probe("other-workdir-relative", readLines(file.path("..", "${basename(targets.otherWorkdir)}", "secret.txt")))`,
        `probe("list-tmp", length(list.files("${tmpdir()}")))`,
        `probe("glob-tmp", length(setdiff(Sys.glob("${tmpdir()}/*"), getwd())))`,
        `probe("environ", readLines("/proc/${pid}/environ", warn = FALSE))`,
        `probe("mem", readBin("/proc/${pid}/mem", "raw", 16))`,
        `probe("cwd-link", Sys.readlink("/proc/${pid}/cwd"))`,
        'probe("parent-environ", readLines(sprintf("/proc/%s/environ", strsplit(readLines("/proc/self/stat"), " ")[[1]][4]), warn = FALSE))',
        'probe("proc-root", readLines("/proc/self/root/etc/hostname"))',
        'probe("list-proc", length(list.files("/proc")))',
        `probe("rules", readLines("${rulesFile}", n = 1))`,
        'probe("etc-shadow", readLines("/etc/shadow", n = 1))',
        'probe("own-status", length(readLines("/proc/self/status")) > 0)',
        'probe("zoneinfo", format(as.POSIXct("2024-06-01 12:00", tz = "UTC"), tz = "Europe/Paris"))',
      ].join('\n'),
      { kernel },
    );
    for (const label of ['other-workdir', 'other-workdir-relative', 'environ', 'mem', 'parent-environ', 'proc-root', 'rules', 'etc-shadow']) {
      expect(refused(run.probes[label]), `${label}: ${run.probes[label]}`).toBe(true);
    }
    for (const label of ['list-tmp', 'glob-tmp', 'list-proc']) expect(run.probes[label], label).toBe('ok: 0');
    // NA: the link could not be read; it names no directory.
    expect(run.probes['cwd-link']).toBe('ok: NA');
    expect(run.stdout).not.toContain('canary-secret-4711');
    expect(run.probes['own-status']).toBe('ok: TRUE');
    expect(run.probes['zoneinfo']).toBe('ok: 2024-06-01 14:00:00');
  });

  it('looks at nothing outside the readable roots: no existence, size or resolved name', async () => {
    const run = await runArmed(lookupProbes(), { kernel });
    for (const label of LOOKUP_LEAKS) {
      expect(run.probes[label], label).toMatch(/^refused:|^ok: (FALSE|NA|-1|)$/);
    }
    // What R itself and an analysis need still answers.
    expect(run.probes['r-home']).toBe('ok: TRUE');
    expect(run.probes['library-path']).toBe('ok: TRUE');
    expect(run.probes['workdir-file']).toBe('ok: TRUE 7');
    expect(run.probes['missing-in-workdir']).toBe('ok: FALSE');
    expect(run.probes['tempdir']).toBe('ok: TRUE');
    expect(run.probes['nested-dir']).toBe('ok: TRUE');
    expect(run.stdout).not.toContain('canary-secret-4711');
  });

  it('cannot be re-armed, disarmed or sidestepped from inside', async () => {
    const run = await runArmed(
      [
        'probe("rearm", .C("jube_capsule_arm", status = integer(1), report = strrep(" ", 255), PACKAGE = "jube_capsule"))',
        'probe("after-rearm", system("echo ran", intern = TRUE))',
        'probe("unset-preload", { Sys.setenv(LD_PRELOAD = ""); system("echo ran", intern = TRUE) })',
        'probe("proc-self-mem", { con <- file("/proc/self/mem", "r+b"); close(con) })',
      ].join('\n'),
      { kernel },
    );
    expect(run.probes['rearm']).toMatch(/^refused: .*not available for \.C\(\)/);
    for (const label of ['after-rearm', 'unset-preload', 'proc-self-mem']) {
      expect(refused(run.probes[label]), `${label}: ${run.probes[label]}`).toBe(true);
    }
  });
});

/** Looks at paths (stat, access, realpath, readlink) that would tell a script about others. */
const LOOKUP_LEAKS = [
  'parent-cwd',
  'parent-exe',
  'parent-fd',
  'shadow-exists',
  'shadow-info',
  'other-workdir-exists',
  'other-secret-info',
  'other-secret-access',
  'other-secret-path',
  'missing-outside',
  'proc-root-shadow',
] as const;

function lookupProbes(): string {
  const parent = 'as.integer(strsplit(readLines("/proc/self/stat"), " ")[[1]][4])';
  return [
    `probe("parent-cwd", normalizePath(sprintf("/proc/%d/cwd", ${parent}), mustWork = TRUE))`,
    `probe("parent-exe", Sys.readlink(sprintf("/proc/%d/exe", ${parent})))`,
    `probe("parent-fd", normalizePath(sprintf("/proc/%d/fd/1", ${parent}), mustWork = TRUE))`,
    'probe("shadow-exists", file.exists("/etc/shadow"))',
    'probe("shadow-info", file.info("/etc/shadow")$size)',
    `probe("other-workdir-exists", dir.exists("${targets.otherWorkdir}"))`,
    `probe("other-secret-info", file.info("${targets.otherSecret}")$size)`,
    `probe("other-secret-access", file.access("${targets.otherSecret}", 0))`,
    `probe("other-secret-path", normalizePath("${targets.otherSecret}", mustWork = TRUE))`,
    'probe("missing-outside", file.exists("/etc/jube-r-no-such-file"))',
    'probe("proc-root-shadow", normalizePath("/proc/self/root/etc/shadow", mustWork = TRUE))',
    'probe("r-home", file.exists(file.path(R.home(), "bin")))',
    'probe("library-path", dir.exists(normalizePath(.libPaths()[1])))',
    'probe("workdir-file", { writeLines("inside", "w.txt"); paste(file.exists(normalizePath("w.txt")), file.info("w.txt")$size) })',
    'probe("missing-in-workdir", file.exists("no-such-file"))',
    'probe("tempdir", file.info(tempdir())$isdir)',
    'probe("nested-dir", dir.create(file.path(getwd(), "x", "y", "z"), recursive = TRUE))',
  ].join('\n');
}

describe('capsule not loaded (the control for the lookups)', () => {
  it('lets the same lookups see the parent, /etc/shadow and another run\'s files', async () => {
    const run = await runArmed(lookupProbes(), { capsule: false });
    expect(run.probes['parent-cwd']).toMatch(/^ok: \//);
    expect(run.probes['shadow-exists']).toBe('ok: TRUE');
    expect(run.probes['other-workdir-exists']).toBe('ok: TRUE');
    expect(run.probes['other-secret-info']).toBe('ok: 12');
    expect(run.probes['other-secret-path']).toMatch(/^ok: \/.*secret\.txt$/);
  });
});

describe('capsule armed: what analysts use still works', () => {
  const declared = loadManifest().declared;

  it('loads every package in packages.R and runs ordinary analysis with the kernel layers on', async () => {
    // Prepare: the strictest posture (the kernel layers also refuse what the preload allows).
    const code = [
      ...declared.map((p) => `suppressPackageStartupMessages(library(${p}))`),
      'cat("@@loaded\\n")',
      'probe("ggplot2-file", { p <- ggplot(mtcars, aes(wt, mpg)) + geom_point() + labs(title = "Fuel"); ggsave("p.png", p, width = 4, height = 3, dpi = 72); file.size("p.png") > 1000 })',
      'probe("fread", { data.table::fwrite(mtcars, "m.csv"); nrow(data.table::fread("m.csv")) })',
      'probe("dplyr", mtcars |> group_by(cyl) |> summarise(m = mean(mpg)) |> nrow())',
      'probe("forecast", class(forecast(auto.arima(AirPassengers), h = 3))[1])',
      'probe("glmnet", length(glmnet(as.matrix(mtcars[, -1]), mtcars$mpg)$lambda) > 10)',
      'probe("ranger", ranger(mpg ~ ., mtcars, num.trees = 20, num.threads = 2)$num.trees)',
      'probe("readr", nrow(read_csv("m.csv", show_col_types = FALSE)))',
      'probe("tempfile", { f <- tempfile(fileext = ".txt"); writeLines("t", f); readLines(f) })',
    ].join('\n');
    // Act
    const run = await runArmed(code, { kernel: 'auto' });
    // Assess
    expect(run.stdout, run.stderr).toContain('@@loaded');
    expect(run.probes).toEqual({
      'ggplot2-file': 'ok: TRUE',
      fread: 'ok: 32',
      dplyr: 'ok: 3',
      forecast: 'ok: forecast',
      glmnet: 'ok: TRUE',
      ranger: 'ok: 20',
      readr: 'ok: 32',
      tempfile: 'ok: t',
    });
  });
});
