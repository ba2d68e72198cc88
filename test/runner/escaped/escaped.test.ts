/**
 * The red-team tier with host R: the R layer is assumed broken. The runner's test-only switch
 * (JUBE_R_TEST_ESCAPED_RUNNER) evaluates each script with the real functions in reach, no static
 * check, no mask, no guard, exactly as a script that beat them would run. What must still hold is
 * the layer below (docs/threat-model.md): no command runs, no socket opens, no survivor, no file
 * reaches the next run, no secret appears, the handler answers the next call. In two postures:
 * the capsule alone (kernel layers off, no bubblewrap: what Lambda has) and with the kernel layers.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { attackTargets } from './attack-targets.ts';
import { readContainment } from '../../../functions/execute/run/containment.ts';
import { processTable } from '../../../functions/execute/run/process-group.ts';
import { harness } from '../helpers.ts';
import { generous } from '../../load-tolerant.ts';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const rulesFile = join(repoRoot, 'layers/rules/script-rules.json');
const targets = attackTargets('jube-r-escaped-marks-', 300);
const { marks } = targets;

/** The R process's parent (the handler, or bwrap): read from /proc/self/status, which the capsule lets a script read. */
const PARENT = 'as.integer(sub("^PPid:\\\\s*", "", grep("^PPid:", readLines("/proc/self/status"), value = TRUE)))';
const mark = (id: string) => join(marks, id);
/** An unusual duration, so a survivor is recognisable by its command line. */
const SURVIVOR_SECONDS = 1234;
const shell = (id: string) => `echo ran > ${mark(id)}`;

/** Each line: an attack an escaped script makes with the real functions. */
const ATTACKS = (id: string) => [
  `try(system("${shell(`${id}-system`)}"))`,
  `try(system2("sh", c("-c", shQuote("${shell(`${id}-system2`)}"))))`,
  // The issue's payload, built without a forbidden symbol or string.
  // (R 4.3 added a fourth argument to the internal.)
  `q <- quote(I(s("${shell(`${id}-internal`)}", TRUE, 0L))); if (getRversion() >= "4.3.0") q[[2]][[5]] <- FALSE; q[[1]] <- as.name(paste0(".Inter", "nal")); q[[2]][[1]] <- as.name(paste0("sys", "tem")); try(eval(q))`,
  `try(readLines(pipe("${shell(`${id}-pipe`)}")))`,
  `try({ pdf("|${shell(`${id}-pdf`)}"); plot(1); dev.off() })`,
  // A survivor that leaves the process group and sheds the run's marker (env -i).
  `try(system("setsid env -i sh -c 'sleep ${SURVIVOR_SECONDS}' &"))`,
  `try(parallel::mcparallel(Sys.sleep(${SURVIVOR_SECONDS})))`,
  `try(socketConnection("127.0.0.1", ${targets.port}, timeout = 2))`,
  `try(readLines(url("http://127.0.0.1:${targets.port}/")))`,
  `try(tools::pskill(${PARENT}, 9L))`,
  `try(tools::pskill(${targets.sleeperPid}L, 9L))`,
  `try(writeLines("persist", "/tmp/jube-r-escaped-${id}"))`,
  `try(writeLines("persist", "/dev/shm/jube-r-escaped-${id}"))`,
  `try(writeLines("persist", "/var/tmp/jube-r-escaped-${id}"))`,
  `try(cat("broken", file = "${rulesFile}"))`,
  `try(cat(readLines(sprintf("/proc/%d/environ", ${PARENT}), warn = FALSE), sep = "\\n"))`,
  `try(print(Sys.getenv()))`,
  'cat("attacks done\\n")',
];

describe.each([
  { posture: 'capsule alone, no bubblewrap (the Lambda posture)', kernel: 'off' as const },
  { posture: 'capsule with Landlock and seccomp, no bubblewrap', kernel: 'auto' as const },
])('an escaped script, $posture', ({ kernel }) => {
  const capsule = readContainment().capsule!;
  const h = generous(harness({
    namespaces: 'none',
    containment: { testEscapedRunner: true, capsule: { ...capsule, kernel } },
  }));
  const rulesBefore = readFileSync(rulesFile, 'utf8');

  it('runs no command, opens no socket, signals no one, leaves nothing behind, reads no secret', async () => {
    // Prepare: a canary in the handler's environment, where Lambda keeps the credentials.
    process.env['AWS_SECRET_ACCESS_KEY'] = 'escaped-canary-secret';
    const before = targets.connections;
    const id = `k-${kernel}`;
    try {
      // Act
      const response = await h.run(ATTACKS(id).join('\n'), { timeoutSeconds: 20 });
      // Assess
      expect(response.consoleOutput).toContain('attacks done');
      expect(readdirSync(marks)).toEqual([]);
      expect(targets.connections).toBe(before);
      expect(() => process.kill(targets.sleeperPid, 0)).not.toThrow();
      expect(readFileSync(rulesFile, 'utf8')).toBe(rulesBefore);
      for (const dir of ['/tmp', '/dev/shm', '/var/tmp']) expect(existsSync(join(dir, `jube-r-escaped-${id}`))).toBe(false);
      expect(response.consoleOutput).not.toContain('escaped-canary-secret');
      expect(response.consoleOutput).not.toContain('AWS_SECRET_ACCESS_KEY');
      // Nothing of the run is alive: no process names its workdir.
      const workdir = h.reports.at(-1)!.workdir;
      expect(h.reports.at(-1)!.capsule).toMatch(kernel === 'off' ? /^preload=armed landlock=off seccomp=off dispatch=patched\(/ : /^preload=armed landlock=abi\d+ seccomp=active dispatch=patched\(/);
      expect(await processesNaming(workdir)).toEqual([]);
      expect(await processesNaming(`sleep ${SURVIVOR_SECONDS}`)).toEqual([]);
      expect(existsSync(workdir)).toBe(false);
    } finally {
      delete process.env['AWS_SECRET_ACCESS_KEY'];
    }
  });

  it('the handler answers the next call, which finds nothing of the previous one', async () => {
    const first = await h.run('try(writeLines("left", "/tmp/jube-r-escaped-next")); writeLines("left", file.path(tempdir(), "x")); cat("first\\n")');
    expect(first.consoleOutput).toContain('first');
    const second = await h.run('cat(file.exists("/tmp/jube-r-escaped-next"), length(list.files(dirname(getwd()))), "\\n")');
    expect(second).toMatchObject({ status: 'ok', consoleOutput: 'FALSE 0 \n' });
  });
});

describe('the control: the same escaped script without the capsule', () => {
  it('does run commands and open sockets, so the assertions above can tell containment from its absence', async () => {
    const h = generous(harness({ namespaces: 'none', containment: { testEscapedRunner: true, capsule: undefined } }));
    const before = targets.connections;
    const response = await h.run(
      [`system("${shell('control-system')}")`, `try(close(socketConnection("127.0.0.1", ${targets.port}, timeout = 2)))`, 'cat("control done\\n")'].join('\n'),
    );
    expect(response.consoleOutput).toContain('control done');
    expect(readdirSync(marks)).toEqual(['control-system']);
    expect(targets.connections).toBe(before + 1);
    rmSync(mark('control-system'));
  });
});

describe('the plain CLI, escaped, as root on a shared host (JUBE_R_NAMESPACES=none)', () => {
  it('cannot break the rules file for later runs, nor read the CLI\'s environment', async () => {
    // Prepare: the attack the held-out corpus made: find the rules file in the command line, overwrite it.
    const script = join(marks, '..', `jube-r-cli-escaped-${process.pid}.R`);
    const source = [
      'args <- commandArgs(trailingOnly = TRUE)',
      'try(writeLines("{}", args[[1]]))',
      'try(writeLines("{}", file.path(dirname(args[[1]]), "script-rules.json")))',
      `try(cat(readLines(sprintf("/proc/%d/environ", ${PARENT}), warn = FALSE), sep = "\\n"))`,
      'cat("done\\n")',
    ].join('\n');
    const rulesBefore = readFileSync(rulesFile, 'utf8');
    const env = { ...process.env, JUBE_R_NAMESPACES: 'none', JUBE_R_TEST_ESCAPED_RUNNER: 'true', JUBE_CLI_CANARY: 'cli-canary-secret', POWERTOOLS_LOG_LEVEL: 'ERROR' };
    try {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(script, source);
      // Act
      const run = await execa(process.execPath, [join(repoRoot, 'scripts/jube-r.mjs'), 'run', script], { env, reject: false, cwd: repoRoot });
      const next = await execa(process.execPath, [join(repoRoot, 'scripts/jube-r.mjs'), 'run', '-'], { env: { ...env, JUBE_R_TEST_ESCAPED_RUNNER: 'false' }, input: 'cat(1 + 1)', reject: false, cwd: repoRoot });
      // Assess
      expect(String(run.stdout)).toContain('done');
      expect(String(run.stdout)).not.toContain('cli-canary-secret');
      expect(readFileSync(rulesFile, 'utf8')).toBe(rulesBefore);
      expect(JSON.parse(String(next.stdout))).toMatchObject({ status: 'ok', consoleOutput: '2' });
    } finally {
      rmSync(script, { force: true });
    }
  });
});

/** Live processes whose command line (arguments joined by spaces) contains `text`. */
async function processesNaming(text: string): Promise<number[]> {
  const found: number[] = [];
  for (const { pid } of await processTable()) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').includes(text)) found.push(pid);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
