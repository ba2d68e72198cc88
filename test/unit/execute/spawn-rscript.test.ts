import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readServiceConfig } from '../../../layers/config/service-config.ts';
import { readRuntimeSettings } from '../../../functions/execute/runtime-settings.ts';
import { preferForOomKill, prlimitArgs, R_OOM_SCORE_ADJ, rscriptCommand, spawnRscript } from '../../../functions/execute/run/spawn-rscript.ts';
import { layout } from './workdir-layout.ts';

describe('the Rscript command line', () => {
  const rlimits = readServiceConfig({}).rlimits;
  const runtime = readRuntimeSettings({ JUBE_R_RUNNER_SCRIPT: '/app/runner/runner.R', JUBE_R_RULES_FILE: '/app/rules.json' });

  it('puts prlimit in front with every limit and no core dumps', () => {
    const { file, args } = rscriptCommand(runtime, rlimits, { kind: 'none', reason: 'test' }, layout);
    expect(file).toBe('prlimit');
    // The runner reads no rules file: what a script may do is the capsule's, below R.
    expect(args).toEqual([...prlimitArgs(rlimits), '--', 'Rscript', '--vanilla', '/app/runner/runner.R', layout.root]);
    expect(prlimitArgs(rlimits)).toEqual([
      `--as=${rlimits.addressSpaceBytes}`, `--fsize=${rlimits.fileSizeBytes}`, `--nofile=${rlimits.openFiles}`, `--nproc=${rlimits.processes}`, '--core=0', '--msgqueue=0',
    ]);
  });

  it('wraps Rscript in bwrap with only the workdir writable and no network', () => {
    const { args } = rscriptCommand(runtime, rlimits, { kind: 'bwrap' }, layout);
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

describe('the OOM killer prefers R', () => {
  it('the spawned process (and what it forks) carries the highest oom_score_adj; the handler keeps its own', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'jube-r-oom-'));
    try {
      const own = readFileSync('/proc/self/oom_score_adj', 'utf8').trim();
      const child = spawnRscript({ file: 'sh', args: ['-c', 'sleep 0.2; cat /proc/self/oom_score_adj; sh -c "cat /proc/self/oom_score_adj"'] }, { ...layout, root: cwd }, { PATH: process.env['PATH'] ?? '' }, 'n');
      const chunks: Buffer[] = [];
      child.stdout!.on('data', (c: Buffer) => chunks.push(c));
      await child;
      expect(Buffer.concat(chunks).toString().trim().split('\n')).toEqual([String(R_OOM_SCORE_ADJ), String(R_OOM_SCORE_ADJ)]);
      expect(readFileSync('/proc/self/oom_score_adj', 'utf8').trim()).toBe(own);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('a process that is gone is left alone, without an error', () => expect(preferForOomKill(2 ** 22 + 12345)).toBe(false));
});
