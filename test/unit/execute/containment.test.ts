/** The containment settings: defaults, the capsule's library, and the switches a deployment refuses. */
import { describe, expect, it } from 'vitest';
import { ContainmentConfigError, readContainment } from '../../../functions/execute/run/containment.ts';

const library = '/bin/sh'; // any existing file stands in for the capsule here

describe('readContainment', () => {
  it('requires the capsule by default and derives the probe beside it', () => {
    const c = readContainment({ JUBE_R_CAPSULE_LIBRARY: library });
    expect(c).toEqual({
      capsule: { library, probe: '/bin/jube-capsule-probe', kernel: 'auto', off: [] },
      sweep: 'run',
      wipeAfterRun: [],
      testEscapedRunner: false,
      testNativeRunner: undefined,
      ipcHygiene: true,
      deployment: undefined,
    });
  });

  it('fails fast, naming the key and the command that builds it, when the required capsule is missing', () => {
    expect(() => readContainment({ JUBE_R_CAPSULE_LIBRARY: '/nonexistent/jube_capsule.so' })).toThrow(
      /JUBE_R_CAPSULE=required but the capsule library \/nonexistent\/jube_capsule.so does not exist; run `npm run setup`/,
    );
  });

  it('reads the image\'s settings', () => {
    const c = readContainment({
      JUBE_R_CAPSULE_LIBRARY: library,
      JUBE_R_CAPSULE_KERNEL: 'off',
      JUBE_R_SWEEP: 'environment',
      JUBE_R_WIPE_AFTER_RUN: '/tmp:/dev/shm:/var/tmp',
    });
    expect(c).toMatchObject({ capsule: { kernel: 'off' }, sweep: 'environment', wipeAfterRun: ['/tmp', '/dev/shm', '/var/tmp'] });
    // The exit-based "fresh environment per run" is gone: Lambda resets an exited environment in the same microVM.
    expect(Object.keys(c)).not.toContain('freshEnvironmentPerRun');
  });

  it.each([
    ['JUBE_R_CAPSULE', 'sometimes'],
    ['JUBE_R_CAPSULE_KERNEL', 'maybe'],
    ['JUBE_R_SWEEP', 'everything'],
    ['JUBE_R_WIPE_AFTER_RUN', 'tmp'],
    ['JUBE_R_WIPE_AFTER_RUN', '/'],
    ['JUBE_R_IPC_HYGIENE', 'never'],
  ])('refuses %s=%s, naming the key', (key, value) => {
    expect(() => readContainment({ JUBE_R_CAPSULE: 'off', [key]: value })).toThrow(new RegExp(`^${key}: `));
  });

  it('reports every bad key at once', () => {
    expect(() => readContainment({ JUBE_R_CAPSULE: 'off', JUBE_R_SWEEP: 'everything', JUBE_R_IPC_HYGIENE: 'never' })).toThrow(
      /^JUBE_R_SWEEP: .*; JUBE_R_IPC_HYGIENE: /,
    );
  });

  it('turns the capsule off only when asked', () => {
    expect(readContainment({ JUBE_R_CAPSULE: 'off' }).capsule).toBeUndefined();
  });

  it('accepts the escaped-runner test switch outside a deployment and refuses it inside one', () => {
    expect(readContainment({ JUBE_R_CAPSULE: 'off', JUBE_R_TEST_ESCAPED_RUNNER: 'true' }).testEscapedRunner).toBe(true);
    expect(() => readContainment({ JUBE_R_CAPSULE: 'off', JUBE_R_TEST_ESCAPED_RUNNER: 'true', JUBE_R_DEPLOYMENT: 'prod' })).toThrow(
      ContainmentConfigError,
    );
  });

  it('runs a native program in place of Rscript only outside a deployment (the red-team tier)', () => {
    expect(readContainment({ JUBE_R_CAPSULE: 'off', JUBE_R_TEST_NATIVE_RUNNER: '/opt/fixture' }).testNativeRunner).toBe('/opt/fixture');
    expect(() => readContainment({ JUBE_R_CAPSULE: 'off', JUBE_R_TEST_NATIVE_RUNNER: 'fixture' })).toThrow(/^JUBE_R_TEST_NATIVE_RUNNER: must be an absolute path/);
    expect(() => readContainment({ JUBE_R_CAPSULE: 'off', JUBE_R_TEST_NATIVE_RUNNER: '/opt/fixture', JUBE_R_DEPLOYMENT: 'prod' })).toThrow(
      /^JUBE_R_TEST_NATIVE_RUNNER is a test-only switch/,
    );
  });

  it('turns the IPC hygiene off only outside a deployment (a test control), and says where it is deployed', () => {
    expect(readContainment({ JUBE_R_CAPSULE: 'off', JUBE_R_IPC_HYGIENE: 'off' }).ipcHygiene).toBe(false);
    expect(readContainment({ JUBE_R_CAPSULE: 'off', JUBE_R_DEPLOYMENT: 'dev' })).toMatchObject({ ipcHygiene: true, deployment: 'dev' });
    expect(() => readContainment({ JUBE_R_CAPSULE: 'off', JUBE_R_IPC_HYGIENE: 'off', JUBE_R_DEPLOYMENT: 'prod' })).toThrow(
      /^JUBE_R_IPC_HYGIENE=off is a test-only switch/,
    );
  });
});
