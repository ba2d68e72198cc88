/** The layer names GET /health reports for the capsule, read from its report. */
import { describe, expect, it } from 'vitest';
import { capsuleLayers } from '../../../layers/contract/sandbox-layers.ts';

describe('capsuleLayers', () => {
  it.each([
    ['preload=armed landlock=abi6 seccomp=active', ['capsule-preload', 'capsule-landlock', 'capsule-seccomp']],
    ['preload=armed landlock=off seccomp=off', ['capsule-preload']],
    [
      'preload=armed landlock=off seccomp=off dispatch=patched(refused=13,fenced=7,sealed=2/2) got=sealed(objects=40,slots=900/1400)',
      ['capsule-preload', 'capsule-dispatch-table', 'capsule-plt-sealed'],
    ],
    ['preload=armed landlock=off seccomp=off dispatch=patched(refused=13,fenced=7,sealed=2/2) got=off', ['capsule-preload', 'capsule-dispatch-table']],
    [
      'preload=armed landlock=abi6 seccomp=active dispatch=skipped(not an R process) got=sealed(objects=5,slots=40/112)',
      ['capsule-preload', 'capsule-plt-sealed', 'capsule-landlock', 'capsule-seccomp'],
    ],
    ['preload=unavailable(dispatch: R_FunTab has an unknown layout) dispatch=patched(x)', []],
    ['preload=armed landlock=unavailable(no_new_privs: Operation not permitted) seccomp=unavailable(no_new_privs: Operation not permitted)', ['capsule-preload']],
    ['preload=armed landlock=abi7 seccomp=unavailable(Invalid argument)', ['capsule-preload', 'capsule-landlock']],
    ['preload=unavailable(the capsule was not preloaded: set LD_PRELOAD)', []],
    ['preload=off', []],
    ['', []],
  ])('%s -> %j', (report, layers) => {
    expect(capsuleLayers(report)).toEqual(layers);
  });
});
