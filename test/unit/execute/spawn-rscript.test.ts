import { describe, expect, it } from 'vitest';
import { readServiceConfig } from '../../../layers/config/service-config.ts';
import { readRuntimePaths } from '../../../functions/execute/runtime-paths.ts';
import { prlimitArgs, rscriptCommand } from '../../../functions/execute/spawn-rscript.ts';
import { layout } from './workdir-layout.ts';

describe('the Rscript command line', () => {
  const rlimits = readServiceConfig({}).rlimits;
  const paths = readRuntimePaths({ JUBE_R_RUNNER_SCRIPT: '/app/runner/runner.R', JUBE_R_RULES_FILE: '/app/rules.json' });

  it('puts prlimit in front with every limit and no core dumps', () => {
    const { file, args } = rscriptCommand(paths, rlimits, { kind: 'none', reason: 'test' }, layout);
    expect(file).toBe('prlimit');
    expect(args).toEqual([...prlimitArgs(rlimits), '--', 'Rscript', '--vanilla', '/app/runner/runner.R', '/app/rules.json', layout.root]);
    expect(prlimitArgs(rlimits)).toEqual([
      `--as=${rlimits.addressSpaceBytes}`, `--fsize=${rlimits.fileSizeBytes}`, `--nofile=${rlimits.openFiles}`, `--nproc=${rlimits.processes}`, '--core=0', '--msgqueue=0',
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
