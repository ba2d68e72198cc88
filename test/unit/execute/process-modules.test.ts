import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { readServiceConfig } from '../../../layers/config/service-config.ts';
import { buildChildEnv } from '../../../functions/execute/child-env.ts';
import { groupMembers, killMarkedProcesses, killProcessGroup, markedProcesses, parseProcStat } from '../../../functions/execute/process-group.ts';
import { readRuntimePaths, RuntimePathsError } from '../../../functions/execute/runtime-paths.ts';
import { prlimitArgs, rscriptCommand } from '../../../functions/execute/spawn-rscript.ts';
import type { WorkdirLayout } from '../../../functions/execute/workdir.ts';

const layout: WorkdirLayout = {
  root: '/tmp/jube-r-x',
  script: '/tmp/jube-r-x/script.R',
  input: '/tmp/jube-r-x/input.json',
  envelope: '/tmp/jube-r-x/envelope.json',
  dataDir: '/tmp/jube-r-x/data',
  home: '/tmp/jube-r-x/home',
  tmp: '/tmp/jube-r-x/tmp',
  noLibrary: '/tmp/jube-r-x/no-user-library',
  emptyFile: '/tmp/jube-r-x/empty',
};

describe('child environment', () => {
  it('is built from the allow-list only', () => {
    const env = buildChildEnv(layout, { path: '/usr/bin:/bin', rLibs: undefined, runMarker: 'abc' });
    expect(Object.keys(env).sort()).toEqual(
      ['JUBE_R_RUN', 'HOME', 'LANG', 'LC_ALL', 'PATH', 'R_ENABLE_JIT', 'R_ENVIRON', 'R_ENVIRON_USER', 'R_LIBS_USER', 'R_PROFILE', 'R_PROFILE_USER', 'TMPDIR', 'TZ'].sort(),
    );
    expect(env).toMatchObject({ JUBE_R_RUN: 'abc', HOME: layout.home, TMPDIR: layout.tmp, TZ: 'UTC', LANG: 'C.UTF-8', R_LIBS_USER: layout.noLibrary });
  });

  it('pins R_LIBS and R_LIBS_SITE when a library is configured', () => {
    expect(buildChildEnv(layout, { rLibs: '/app/R/library', runMarker: 'abc' })).toMatchObject({ R_LIBS: '/app/R/library', R_LIBS_SITE: '/app/R/library' });
  });
});

describe('runtime paths', () => {
  it('reads the JUBE_R_* overrides', () => {
    const paths = readRuntimePaths({ JUBE_R_RSCRIPT: '/opt/R/bin/Rscript', JUBE_R_TMP_ROOT: '/scratch', JUBE_R_PRLIMIT: 'none', JUBE_R_SANDBOX: 'none' });
    expect(paths).toMatchObject({ rscript: '/opt/R/bin/Rscript', tmpRoot: '/scratch', prlimit: undefined, sandbox: 'none' });
    expect(paths.runnerScript).toMatch(/r-image\/runner\/runner\.R$/);
  });

  it('refuses an unknown sandbox mode', () => {
    expect(() => readRuntimePaths({ JUBE_R_SANDBOX: 'docker' })).toThrow(RuntimePathsError);
  });
});

describe('the Rscript command line', () => {
  const rlimits = readServiceConfig({}).rlimits;
  const paths = readRuntimePaths({ JUBE_R_RUNNER_SCRIPT: '/app/runner/runner.R', JUBE_R_RULES_FILE: '/app/rules.json' });

  it('puts prlimit in front with every limit and no core dumps', () => {
    const { file, args } = rscriptCommand(paths, rlimits, { kind: 'none', reason: 'test' }, layout);
    expect(file).toBe('prlimit');
    expect(args).toEqual([...prlimitArgs(rlimits), '--', 'Rscript', '--vanilla', '/app/runner/runner.R', '/app/rules.json', layout.root]);
    expect(prlimitArgs(rlimits)).toEqual([
      `--as=${rlimits.addressSpaceBytes}`, `--fsize=${rlimits.fileSizeBytes}`, `--nofile=${rlimits.openFiles}`, `--nproc=${rlimits.processes}`, '--core=0',
    ]);
  });

  it('wraps Rscript in bwrap with only the workdir writable and no network', () => {
    const { args } = rscriptCommand(paths, rlimits, { kind: 'bwrap' }, layout);
    const bwrapAt = args.indexOf('bwrap');
    expect(bwrapAt).toBeGreaterThan(0);
    const bwrap = args.slice(bwrapAt);
    expect(bwrap).toContain('--unshare-all');
    expect(bwrap).toContain('--die-with-parent');
    expect(bwrap.join(' ')).toContain(`--bind ${layout.root} ${layout.root}`);
    expect(bwrap.filter((a) => a === '--bind')).toHaveLength(1);
    expect(bwrap.join(' ')).toContain('--ro-bind /app/runner /app/runner');
  });
});

describe('process groups', () => {
  it.each([
    { text: '123 (R) S 1 123 123 0 -1', expected: { state: 'S', ppid: 1, pgid: 123 } },
    { text: '9 (odd) name (x)) R 5 77 77 0', expected: { state: 'R', ppid: 5, pgid: 77 } },
    { text: 'garbage', expected: undefined },
  ])('parses /proc/<pid>/stat: $text', ({ text, expected }) => {
    expect(parseProcStat(text)).toEqual(expected);
  });

  it('kills a whole detached group, forks included, and verifies it is empty', async () => {
    const child = spawn('sh', ['-c', 'sleep 60 & sleep 60 & wait'], { detached: true, stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 200));
    const pgid = child.pid!;
    expect((await groupMembers(pgid)).length).toBe(3);
    const report = await killProcessGroup(pgid);
    expect(report.killed).toHaveLength(3);
    expect(report.survivors).toEqual([]);
    expect(await groupMembers(pgid)).toEqual([]);
  });

  it('finds and kills a process that left the group (setsid) by the run marker in its environment', async () => {
    const marker = `test-${process.pid}-${Date.now()}`;
    // The leader starts a grandchild in a session of its own, then everything but it is group-killed.
    const child = spawn('sh', ['-c', 'setsid sleep 60 & sleep 60'], {
      detached: true,
      stdio: 'ignore',
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', JUBE_R_RUN: marker },
    });
    await new Promise((r) => setTimeout(r, 300));
    const group = await killProcessGroup(child.pid!);
    expect(group.survivors).toEqual([]);
    const escaped = await markedProcesses(marker);
    expect(escaped).toHaveLength(1);

    const swept = await killMarkedProcesses(marker);
    expect(swept).toEqual({ killed: escaped, survivors: [] });
    expect(await markedProcesses(marker)).toEqual([]);
    // A near-miss marker (a prefix of another run's) is not ours.
    expect(await markedProcesses(marker.slice(0, -1))).toEqual([]);
  });
});
