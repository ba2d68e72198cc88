/**
 * scripts/image-facts.sh, the one extraction of an image's package facts (npm run image:build calls
 * it, and a deployer on any OS runs it against the pushed image), driven here through a stand-in
 * container engine that answers as Docker and podman do for `image inspect`, `pull`, `create`, `cp`
 * and `rm`. What it must do: copy the directory the image's own JUBE_R_MANIFEST_FILE names, and record
 * beside it which image (id, registry digest) the facts came from, which synthesis then checks
 * against `-c executeImageUri`.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../../infra/lib/app.ts';
import { IMAGE_SOURCE_SUFFIX, PackageFactsMissingError, readPackageFacts } from '../../../infra/lib/package-facts.ts';

const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'jube-r-image-facts-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const DIGEST = `sha256:${'d'.repeat(64)}`;
const IMAGE = `123456789012.dkr.ecr.eu-west-1.amazonaws.com/jube-r-execute@${DIGEST}`;

/** The image's filesystem (what `cp container:/...` reads) and a log of the engine's calls. */
function standInEngine(): { engine: string; calls: string } {
  const root = join(work, 'image-root');
  mkdirSync(join(root, 'app/packages/help'), { recursive: true });
  const host = JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'layers/packages/manifest.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(root, 'app/packages/manifest.json'), JSON.stringify({ ...host, rVersion: '4.5.0' }));
  writeFileSync(join(root, 'app/packages/help/stats.json'), '{}');
  const calls = join(work, 'calls.log');
  const engine = join(work, 'engine');
  writeFileSync(
    engine,
    `#!/usr/bin/env bash
echo "$*" >> ${JSON.stringify(calls)}
case "$1 $2" in
  "image inspect")
    [[ -f ${JSON.stringify(join(work, 'pulled'))} ]] || exit 1
    case "$4" in
      *Config.Env*) printf 'PATH=/usr/bin\\nJUBE_R_MANIFEST_FILE=/app/packages/manifest.json\\n' ;;
      *RepoDigests*) printf '%s\\n' "123456789012.dkr.ecr.eu-west-1.amazonaws.com/jube-r-execute@${DIGEST}" ;;
      *.Id*) echo "sha256:${'e'.repeat(64)}" ;;
    esac ;;
  "pull "*) touch ${JSON.stringify(join(work, 'pulled'))} ;;
  "create "*) echo container-1 ;;
  "cp container-1:/app/packages/.") cp -R ${JSON.stringify(join(root, 'app/packages'))}/. "$3" ;;
  "rm -f") ;;
  *) echo "unexpected: $*" >&2; exit 2 ;;
esac
`,
  );
  chmodSync(engine, 0o755);
  return { engine, calls };
}

describe('scripts/image-facts.sh', () => {
  it("pulls the image by digest, copies its manifest's directory and records the image beside it", async () => {
    const { engine, calls } = standInEngine();
    const facts = join(work, 'facts');
    await run('bash', ['scripts/image-facts.sh', IMAGE], {
      cwd: REPOSITORY_ROOT,
      env: { ...process.env, JUBE_R_CONTAINER_ENGINE: engine, JUBE_R_PACKAGE_FACTS_DIR: facts },
    });
    expect(readFileSync(calls, 'utf8')).toMatch(new RegExp(`^pull ${IMAGE.replace(/[.]/g, '\\.')}$`, 'm'));
    const read = readPackageFacts(facts, { imageDigest: DIGEST });
    expect(read.files).toEqual(['help/stats.json', 'manifest.json']);
    expect(read.manifest.rVersion).toBe('4.5.0');
    expect(read.source).toEqual({ image: IMAGE, id: `sha256:${'e'.repeat(64)}`, digest: DIGEST });
    // The record lies beside the directory, which stays the image's own, file for file.
    expect(existsSync(`${facts}${IMAGE_SOURCE_SUFFIX}`)).toBe(true);
  });

  it("refuses facts that are another image's, or of no recorded image, naming the command", () => {
    const facts = join(work, 'facts');
    const other = `sha256:${'f'.repeat(64)}`;
    expect(() => readPackageFacts(facts, { imageDigest: other })).toThrow(PackageFactsMissingError);
    expect(() => readPackageFacts(facts, { imageDigest: other })).toThrow(/scripts\/image-facts\.sh <executeImageUri>/);
    rmSync(`${facts}${IMAGE_SOURCE_SUFFIX}`);
    expect(() => readPackageFacts(facts, { imageDigest: DIGEST })).toThrow(/an unrecorded image/);
    expect(readPackageFacts(facts).source).toBeUndefined();
  });

  it('refuses an image that is not a jube-r execute image', async () => {
    const engine = join(work, 'bare-engine');
    writeFileSync(engine, '#!/usr/bin/env bash\ncase "$1 $2" in "image inspect") exit 0 ;; *) exit 0 ;; esac\n');
    chmodSync(engine, 0o755);
    const failure = await run('bash', ['scripts/image-facts.sh', 'debian:trixie-slim'], {
      cwd: REPOSITORY_ROOT,
      env: { ...process.env, JUBE_R_CONTAINER_ENGINE: engine, JUBE_R_PACKAGE_FACTS_DIR: join(work, 'none') },
    }).catch((error: { stderr: string }) => error);
    expect((failure as { stderr: string }).stderr).toContain('sets no JUBE_R_MANIFEST_FILE: not a jube-r execute image');
  });
});
