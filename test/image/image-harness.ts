/**
 * Shared by the image tests: build the image once (podman's layer cache makes a rebuild after a
 * code change take seconds) and run commands inside it under Lambda's constraints.
 */
import { execa } from 'execa';
import { fileURLToPath } from 'node:url';
import { DEFAULT_IMAGE, HARDENED_RUN_FLAGS, PODMAN } from '../../functions/tools/local/container-runtime.ts';

export const IMAGE = process.env['JUBE_R_IMAGE'] ?? DEFAULT_IMAGE;
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Stages the context and builds the image (the real `npm run image:build`); with podman's layer
 * cache this takes seconds after the first build. The build log is shown only when it fails.
 */
export async function buildImage(): Promise<void> {
  const build = await execa('bash', ['scripts/image-build.sh'], {
    cwd: repoRoot,
    env: { JUBE_R_IMAGE: IMAGE },
    all: true,
    reject: false,
  });
  if (build.exitCode !== 0) throw new Error(`image build failed:\n${String(build.all).slice(-6000)}`);
}

/** The red-team tier's image: IMAGE plus the native fixture (test/image/fixtures/Containerfile). */
export const REDTEAM_IMAGE = `${IMAGE}-redteam`;
export const NATIVE_FIXTURE = '/opt/jube-r-test/escaped-native';

/** Builds IMAGE, then REDTEAM_IMAGE on top of it. */
export async function buildRedTeamImage(): Promise<void> {
  await buildImage();
  const base = await execa('bash', ['scripts/image-base.sh'], { cwd: repoRoot, reject: false });
  if (base.exitCode !== 0) throw new Error(`no base image:\n${base.stderr}`);
  const build = await execa(
    PODMAN[0],
    [
      ...PODMAN.slice(1), 'build', '--isolation', 'chroot', '--layers',
      '--build-arg', `BASE_IMAGE=${base.stdout.trim()}`, '--build-arg', `IMAGE=${IMAGE}`,
      '-t', REDTEAM_IMAGE, '-f', 'test/image/fixtures/Containerfile', 'test/image/fixtures',
    ],
    { cwd: repoRoot, all: true, reject: false },
  );
  if (build.exitCode !== 0) throw new Error(`red-team image build failed:\n${String(build.all).slice(-6000)}`);
}

export interface InsideResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a /bin/sh script inside the image with the hardened flags, as the image's own user
 * (the Dockerfile's USER) unless `user` says otherwise.
 */
export async function runInside(script: string, options: { user?: string } = {}): Promise<InsideResult> {
  const user = options.user ? ['--user', options.user] : [];
  const result = await execa(
    PODMAN[0],
    [...PODMAN.slice(1), 'run', '--rm', ...HARDENED_RUN_FLAGS, ...user, '--entrypoint', '/bin/sh', IMAGE, '-c', script],
    { reject: false },
  );
  return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
}

export async function imageConfig(): Promise<{ User: string; Entrypoint: string[]; Cmd: string[] | null; Env: string[] }> {
  const { stdout } = await execa(PODMAN[0], [...PODMAN.slice(1), 'image', 'inspect', '--format', '{{json .Config}}', IMAGE]);
  return JSON.parse(stdout) as { User: string; Entrypoint: string[]; Cmd: string[] | null; Env: string[] };
}
