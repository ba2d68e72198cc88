import { describe, expect, it } from 'vitest';
import { readRuntimeSettings, RuntimeSettingsError } from '../../../functions/execute/runtime-settings.ts';

describe('runtime settings', () => {
  it('reads the JUBE_R_* overrides', () => {
    const runtime = readRuntimeSettings({ JUBE_R_RSCRIPT: '/opt/R/bin/Rscript', JUBE_R_TMP_ROOT: '/scratch', JUBE_R_PRLIMIT: 'none', JUBE_R_NAMESPACES: 'none' });
    expect(runtime).toMatchObject({ rscript: '/opt/R/bin/Rscript', tmpRoot: '/scratch', prlimit: undefined, namespaces: 'none' });
    expect(runtime.runnerScript).toMatch(/r-image\/runner\/runner\.R$/);
  });

  it('refuses an unknown namespaces mode', () => {
    expect(() => readRuntimeSettings({ JUBE_R_NAMESPACES: 'docker' })).toThrow(RuntimeSettingsError);
  });

  it('reports every problem at once, the containment\'s included, each naming its key', () => {
    const read = () => readRuntimeSettings({ JUBE_R_NAMESPACES: 'docker', JUBE_R_SWEEP: 'everything', JUBE_R_CAPSULE_KERNEL: 'maybe' });
    expect(read).toThrow(/JUBE_R_NAMESPACES: .*; JUBE_R_CAPSULE_KERNEL: .*; JUBE_R_SWEEP: /);
  });
});
