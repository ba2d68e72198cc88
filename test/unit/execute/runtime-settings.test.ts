import { describe, expect, it } from 'vitest';
import { readRuntimeSettings, RuntimeSettingsError } from '../../../functions/execute/runtime-settings.ts';

describe('runtime runtime', () => {
  it('reads the JUBE_R_* overrides', () => {
    const runtime = readRuntimeSettings({ JUBE_R_RSCRIPT: '/opt/R/bin/Rscript', JUBE_R_TMP_ROOT: '/scratch', JUBE_R_PRLIMIT: 'none', JUBE_R_NAMESPACES: 'none' });
    expect(runtime).toMatchObject({ rscript: '/opt/R/bin/Rscript', tmpRoot: '/scratch', prlimit: undefined, namespaces: 'none' });
    expect(runtime.runnerScript).toMatch(/r-image\/runner\/runner\.R$/);
  });

  it('refuses an unknown namespaces mode', () => {
    expect(() => readRuntimeSettings({ JUBE_R_NAMESPACES: 'docker' })).toThrow(RuntimeSettingsError);
  });
});
