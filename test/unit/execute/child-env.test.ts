import { describe, expect, it } from 'vitest';
import { buildChildEnv } from '../../../functions/execute/run/child-env.ts';
import { layout } from './workdir-layout.ts';

describe('child environment', () => {
  it('is built from the allow-list only', () => {
    const env = buildChildEnv(layout, { path: '/usr/bin:/bin', rLibs: undefined, runMarker: 'abc' });
    expect(Object.keys(env).sort()).toEqual(
      ['JUBE_R_RUN', 'HOME', 'LANG', 'LC_ALL', 'LD_BIND_NOW', 'MC_CORES', 'PATH', 'R_ENABLE_JIT', 'R_ENVIRON', 'R_ENVIRON_USER', 'R_LIBS_USER', 'R_PROFILE', 'R_PROFILE_USER', 'TMPDIR', 'TZ'].sort(),
    );
    expect(env).toMatchObject({ JUBE_R_RUN: 'abc', HOME: layout.home, TMPDIR: layout.tmp, TZ: 'UTC', LANG: 'C.UTF-8', R_LIBS_USER: layout.noLibrary });
    // Every object bound at load, so arming can seal the PLT slots; mclapply() serial (one process here).
    expect(env).toMatchObject({ LD_BIND_NOW: '1', MC_CORES: '1' });
  });

  it('pins R_LIBS and R_LIBS_SITE when a library is configured', () => {
    expect(buildChildEnv(layout, { rLibs: '/app/R/library', runMarker: 'abc' })).toMatchObject({ R_LIBS: '/app/R/library', R_LIBS_SITE: '/app/R/library' });
  });
});
