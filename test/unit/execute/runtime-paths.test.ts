import { describe, expect, it } from 'vitest';
import { readRuntimePaths, RuntimePathsError } from '../../../functions/execute/runtime-paths.ts';

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
