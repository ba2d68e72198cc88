/** Containment with real R: scrubbed environment, nothing outlives the call, nothing carries over. */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupMembers } from '../../functions/execute/run/process-group.ts';
import { readRuntimeSettings } from '../../functions/execute/runtime-settings.ts';
import { resolveNamespaces } from '../../functions/execute/run/bwrap.ts';
import { acceptEverything, harness } from './helpers.ts';

const CANARY = 'JUBE_TEST_CANARY_SECRET';
const CANARY_VALUE = 'canary-7f3a9c-do-not-leak';

/** Prints a /proc environ file as lines (NUL-separated on disk; readBin is allowed to scripts). */
const printEnviron = (path: string) =>
  `x <- tryCatch(readBin("${path}", "raw", 1e6), error = function(e) as.raw(0))\nx[x == as.raw(0)] <- as.raw(10)\ncat(rawToChar(x), "\\n")`;

const bwrapWorks = (await resolveNamespaces('auto')).kind === 'bwrap';

describe.each([
  { namespaces: 'none' as const },
  ...(bwrapWorks ? [{ namespaces: 'bwrap' as const }] : []),
])('execute handler isolation (namespaces: $namespaces)', ({ namespaces }) => {
  const h = harness({ namespaces, validator: acceptEverything });
  // No static check at all: what the script does meets only what is below R.
  const escaped = harness({ namespaces, containment: { testEscapedRunner: true } });
  // The process-group layer on its own: without the capsule a script can fork at all.
  const uncapsuled = harness({ namespaces, containment: { testEscapedRunner: true, capsule: undefined } });

  beforeAll(() => {
    process.env[CANARY] = CANARY_VALUE;
    process.env['AWS_SECRET_ACCESS_KEY'] = CANARY_VALUE;
    process.env['AWS_LAMBDA_RUNTIME_API'] = '127.0.0.1:9001';
  });
  afterAll(() => {
    delete process.env[CANARY];
    delete process.env['AWS_SECRET_ACCESS_KEY'];
    delete process.env['AWS_LAMBDA_RUNTIME_API'];
  });

  it('the script\'s own environment holds only the allow-list', async () => {
    const response = await h.run('cat(paste0(names(Sys.getenv()), "=", Sys.getenv()), sep = "\\n")');
    expect(response.status).toBe('ok');
    const names = response.consoleOutput
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => l.slice(0, l.indexOf('=')));
    expect(response.consoleOutput).not.toContain(CANARY_VALUE);
    expect(names).not.toContain('AWS_LAMBDA_RUNTIME_API');
    // R adds its own (R_HOME, R_SHARE_DIR, ...) on start; nothing else may come from the handler.
    const fromHandler = names.filter((n) => !n.startsWith('R_') && !['EDITOR', 'PAGER', 'LN_S', 'MAKE', 'SED', 'TAR', 'LD_LIBRARY_PATH', 'PWD', 'SHLVL'].includes(n));
    expect(fromHandler.sort()).toEqual([
      'HOME', 'JUBE_R_CAPSULE_KERNEL', 'JUBE_R_CAPSULE_LIBRARY', 'JUBE_R_CAPSULE_WORKDIR', 'JUBE_R_RUN', 'LANG', 'LC_ALL',
      'LD_BIND_NOW', 'LD_PRELOAD', 'MC_CORES', 'PATH', 'TMPDIR', 'TZ',
    ]);
  });

  it('the process\'s own environ file is not readable: the environment is read through R', async () => {
    const response = await h.run(printEnviron('/proc/self/environ'));
    expect(response.status).toBe('ok');
    expect(response.consoleOutput).not.toContain('PATH=');
  });

  it('a string-built Sys.getenv finds nothing of the handler\'s: the environment was built from an allow-list', async () => {
    const response = await h.run(`unlist(lapply(c("${CANARY}", "AWS_SECRET_ACCESS_KEY", "TZ"), paste0("Sys.get", "env")))`);
    expect(response.status).toBe('ok');
    expect(response).toMatchObject({ value: { kind: 'json', json: ['', '', 'UTC'] } });
    expect(JSON.stringify(response)).not.toContain(CANARY_VALUE);
  });

  it('HOME and TMPDIR are inside the private workdir', async () => {
    const response = await h.run('cat(normalizePath(path.expand("~")), normalizePath(tempdir()), getwd(), sep = "\\n")');
    const [home, tmp, cwd] = response.consoleOutput.trim().split('\n');
    const workdir = h.reports.at(-1)!.workdir;
    expect(home).toBe(`${workdir}/home`);
    expect(tmp?.startsWith(`${workdir}/tmp/`)).toBe(true);
    expect(cwd).toBe(workdir);
  });

  if (namespaces === 'none') {
    it('without bwrap the capsule keeps the parent\'s environ out of reach', async () => {
      const response = await h.run(printEnviron(`/proc/${process.pid}/environ`));
      expect(response.status).toBe('ok');
      expect(response.consoleOutput).not.toContain('PATH=');
    });

    it('without bwrap and without the capsule the parent\'s exec-time environ is readable (why the capsule exists)', async () => {
      const response = await uncapsuled.run(printEnviron(`/proc/${process.pid}/environ`));
      // The handler's *current* process.env is not the environ block the kernel shows, but
      // whatever was there at exec time is; this run of vitest started without the canary.
      expect(response.status).toBe('ok');
      expect(response.consoleOutput).toContain('PATH=');
    });
  } else {
    it('with bwrap the parent process is not visible at all', async () => {
      const response = await h.run(
        `cat(file.exists("/proc/${process.pid}/environ"), "\\n")\n${printEnviron('/proc/1/environ')}\n${printEnviron('/proc/0/environ')}`,
      );
      expect(response.status).toBe('ok');
      expect(response.consoleOutput.startsWith('FALSE')).toBe(true);
      expect(response.consoleOutput).not.toContain(CANARY_VALUE);
      expect(response.consoleOutput).not.toContain('AWS_SECRET_ACCESS_KEY');
    });

    it('with bwrap there is no network', async () => {
      // Without the capsule, which keeps /proc/self/net unreadable: bwrap's namespace is what is shown.
      const response = await uncapsuled.run('cat(readLines("/proc/net/dev"), sep = "\\n")');
      const interfaces = response.consoleOutput.split('\n').slice(2).filter((l) => l.includes(':')).map((l) => l.split(':')[0]!.trim());
      expect(interfaces).toEqual(['lo']);
    });
  }

  it('with the capsule a script cannot fork at all', async () => {
    const response = await escaped.run('job <- parallel::mcparallel(Sys.sleep(60))');
    expect(response).toMatchObject({ status: 'error', error: expect.stringContaining('unable to fork') });
    // No child to outlive the call. (`killed` may hold the run's own processes still exiting when the
    // group is ended, as bwrap's do on a loaded machine: the error above is what shows no fork happened.)
    const group = escaped.reports.at(-1)!.group;
    expect([...(group?.survivors ?? []), ...(group?.escaped ?? [])]).toEqual([]);
  });

  it('without the capsule a background mcparallel child does not survive the call', async () => {
    const response = await uncapsuled.run('job <- parallel::mcparallel(Sys.sleep(60))\ncat(job$pid, "\\n")');
    expect(response.status).toBe('ok');
    const report = uncapsuled.reports.at(-1)!;
    expect(report.group?.survivors).toEqual([]);
    expect(await groupMembers(report.pid!)).toEqual([]);
  });

  it('without the capsule the backstop kills the whole group, a fork included, and verifies it is empty', async () => {
    const response = await uncapsuled.run('job <- parallel::mcparallel(Sys.sleep(60))\ncat(job$pid, "\\n")\nSys.sleep(30)', { timeoutSeconds: 1 });
    expect(response.timedOut).toBe(true);
    const report = uncapsuled.reports.at(-1)!;
    // R itself, its fork, and (with bwrap) bwrap's processes were all alive when the kill came.
    expect(report.group?.killed.length).toBeGreaterThanOrEqual(2);
    if (namespaces === 'none') expect(report.group?.killed).toContain(Number(response.consoleOutput.trim()));
    expect(report.group?.survivors).toEqual([]);
    expect(await groupMembers(report.pid!)).toEqual([]);
  });

  it('wipes the workdir and the next invocation sees nothing the previous one left', async () => {
    const first = await h.run('writeLines("left over", file.path(tempdir(), "x.txt"))\nwriteLines("home", "~/y.txt")\nwriteLines("cwd", "z.txt")\nleaked <- 1');
    expect(first.status).toBe('ok');
    const firstWorkdir = h.reports.at(-1)!.workdir;
    expect(existsSync(firstWorkdir)).toBe(false);

    const second = await h.run(
      `cat(file.exists("${firstWorkdir}"), exists("leaked"), length(list.files(tempdir())), file.exists("~/y.txt"), file.exists("z.txt"), "\\n")`,
    );
    expect(second.consoleOutput).toBe('FALSE FALSE 0 FALSE FALSE \n');
  });
});

describe('sandbox detection', () => {
  it('reports the layers active in this process', async () => {
    const { activeSandboxLayers } = await import('../../functions/execute/run/active-layers.ts');
    const layers = await activeSandboxLayers({ ...readRuntimeSettings(), namespaces: 'auto', prlimit: 'prlimit' });
    expect(layers).toContain('rlimits');
    expect(layers.includes('bwrap-namespaces')).toBe(bwrapWorks);
    // This host grants no_new_privs: the capsule's kernel layers come with its interposition (the
    // probe is not R, so capsule-dispatch-table comes only from a run's own report).
    expect(layers).toEqual(expect.arrayContaining(['capsule-preload', 'capsule-plt-sealed', 'capsule-landlock', 'capsule-seccomp']));
  });
});
