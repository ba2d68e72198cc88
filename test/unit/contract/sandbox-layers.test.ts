/** The layer names GET /health reports for the capsule, read from its report. */
import { describe, expect, it } from 'vitest';
import { capsuleLayers } from '../../../layers/contract/sandbox-layers.ts';

describe('capsuleLayers', () => {
  it.each([
    ['preload=armed landlock=abi6 seccomp=active', ['capsule-preload', 'capsule-landlock', 'capsule-seccomp']],
    ['preload=armed landlock=off seccomp=off', ['capsule-preload']],
    ['preload=armed landlock=off seccomp=off rinternals=patched(removed=13,fenced=7,sealed=16)', ['capsule-preload', 'capsule-r-internals']],
    ['preload=armed landlock=abi6 seccomp=active rinternals=skipped(not an R process)', ['capsule-preload', 'capsule-landlock', 'capsule-seccomp']],
    ['preload=unavailable(rinternals: R_FunTab has an unknown layout) rinternals=patched(x)', []],
    ['preload=armed landlock=unavailable(no_new_privs: Operation not permitted) seccomp=unavailable(no_new_privs: Operation not permitted)', ['capsule-preload']],
    ['preload=armed landlock=abi7 seccomp=unavailable(Invalid argument)', ['capsule-preload', 'capsule-landlock']],
    ['preload=unavailable(the capsule was not preloaded: set LD_PRELOAD)', []],
    ['preload=off', []],
    ['', []],
  ])('%s -> %j', (report, layers) => {
    expect(capsuleLayers(report)).toEqual(layers);
  });
});
