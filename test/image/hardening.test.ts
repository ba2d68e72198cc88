/**
 * The image's hardening (docs/image.md), asserted from inside a container run
 * the way Lambda runs it: read-only root, writable /tmp, no capabilities, no network.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { PackageManifestSchema } from '../../layers/packages/manifest.ts';
import { join } from 'node:path';
import { DEFAULT_PATHS } from '../../infra/lib/app.ts';
import { readPackageFacts } from '../../infra/lib/package-facts.ts';
import { logicalIdOf, synthesize } from '../unit/infra/synth-fixture.ts';
import { buildImage, imageConfig, runInside } from './image-harness.ts';

const declaredPackages = (): string[] => {
  const text = readFileSync(new URL('../../packages.R', import.meta.url), 'utf8').replace(/#.*$/gm, '');
  const vector = /jube_r_packages\s*<-\s*c\(([^)]*)\)/.exec(text)?.[1] ?? '';
  return [...vector.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
};

beforeAll(async () => {
  await buildImage();
});

describe('the image has no way to install or build software', () => {
  it.each([
    ['package manager binaries', 'for b in apt apt-get apt-cache apt-key dpkg dpkg-query dpkg-deb; do command -v "$b"; done'],
    ['package manager lists and state', 'for d in /etc/apt /var/lib/apt /var/cache/apt /var/lib/dpkg /etc/dpkg; do [ -e "$d" ] && echo "$d"; done'],
    ['compilers and build tools', 'for b in cc c++ gcc g++ cpp clang make ld as; do command -v "$b"; done'],
  ])('finds no %s', async (_what, script) => {
    // Act
    const found = await runInside(`${script}; true`);

    // Assess
    expect(found.exitCode).toBe(0);
    expect(found.stdout).toBe('');
  });
});

describe('nothing in the image raises privileges', () => {
  it('has no setuid or setgid file or directory anywhere', async () => {
    // As root (still without capabilities) so that no directory is hidden from the search.
    const found = await runInside('find / -xdev -perm /6000; echo "exit=$?"', { user: 'root' });

    expect(found.stderr).toBe('');
    expect(found.stdout).toBe('exit=0');
  });

  it('runs as a non-root system user whose shell is nologin', async () => {
    const who = await runInside('id -u; id -un; getent passwd "$(id -un)" | cut -d: -f7');

    const [uid, name, shell] = who.stdout.split('\n');
    expect(Number(uid)).toBeGreaterThan(0);
    expect(Number(uid)).toBeLessThan(1000);
    expect(name).toBe('jube');
    expect(shell).toBe('/usr/sbin/nologin');
  });

  it('cannot regain root through su even when asked', async () => {
    const attempt = await runInside('su -s /bin/sh -c id root </dev/null 2>&1; echo "exit=$?"');

    expect(attempt.stdout).not.toMatch(/uid=0/);
    expect(attempt.stdout).toMatch(/exit=[1-9]/);
  });
});

describe('/app is root-owned and read-only to the user', () => {
  it('owns every file under /app as root and grants no group or other write', async () => {
    const offenders = await runInside("find /app \\( ! -user root -o ! -group root -o -perm /022 \\) -print; stat -c '%U %a' /app");

    expect(offenders.stdout).toBe('root 755');
  });

  it('gives the user nothing writable in /app', async () => {
    const writable = await runInside('find /app -writable -print; touch /app/x 2>/dev/null && echo wrote');

    expect(writable.stdout).toBe('');
  });

  it('has a read-only root and a writable /tmp, as Lambda does', async () => {
    const probe = await runInside('touch /etc/probe 2>/dev/null && echo root-writable; touch /tmp/probe && echo tmp-writable');

    expect(probe.stdout).toBe('tmp-writable');
  });
});

describe('the runtime process is started directly and keeps its secrets', () => {
  it('has an exec-form entrypoint that starts the runtime interface client with the handler', async () => {
    const config = await imageConfig();

    // env removes every credential variable Lambda documents before tini (PID 1) starts.
    expect(config.Entrypoint).toEqual([
      '/usr/bin/env',
      ...['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_ACCESS_KEY', 'AWS_SECRET_KEY', 'AWS_SECURITY_TOKEN',
        'AWS_CONTAINER_CREDENTIALS_FULL_URI', 'AWS_CONTAINER_AUTHORIZATION_TOKEN'].flatMap((name) => ['-u', name]),
      '/usr/bin/tini', '--', '/usr/local/bin/node', '/app/node_modules/aws-lambda-ric/index.mjs',
    ]);
    // The 4.x client reads the handler from _HANDLER, which Lambda sets from CMD.
    expect(config.Cmd).toEqual(['handler.handler']);
    expect(config.Env).toContain('_HANDLER=handler.handler');
    expect(config.User).toBe('jube');
  });

  it("has util-linux's ipcrm and prlimit, which the handler spawns (IPC hygiene, rlimits)", async () => {
    const found = await runInside('command -v ipcrm; command -v prlimit');
    expect(found.stdout.split('\n')).toEqual(['/usr/bin/ipcrm', '/usr/bin/prlimit']);
  });

  it('runs Node 24 from the official binaries (not Debian\'s 20) with the 4.x runtime interface client', async () => {
    const versions = await runInside('node --version; node -p "require(\'/app/node_modules/aws-lambda-ric/package.json\').version"; command -v nodejs || echo no-debian-node');
    expect(versions.stdout.split('\n')).toEqual(['v24.22.3', '4.0.2', 'no-debian-node']);
  });

  it('ships the capsule root-owned beside the handler, and it arms here, with and without the kernel layers', async () => {
    const probe = await runInside(
      'stat -c "%U %a %n" /app/native/jube_capsule.so /app/native/jube-capsule-probe; /app/native/jube-capsule-probe /app/native/jube_capsule.so; JUBE_R_CAPSULE_KERNEL=off /app/native/jube-capsule-probe /app/native/jube_capsule.so',
    );
    const lines = probe.stdout.split('\n');
    expect(lines.slice(0, 2)).toEqual(['root 755 /app/native/jube_capsule.so', 'root 755 /app/native/jube-capsule-probe']);
    expect(lines[2]).toMatch(/^preload=armed landlock=abi\d+ seccomp=active dispatch=skipped\(not an R process\) got=sealed\(objects=\d+,slots=[1-9]\d*\/\d+\)$/);
    expect(lines[3]).toMatch(/^preload=armed landlock=off seccomp=off dispatch=skipped\(not an R process\) got=sealed\(objects=\d+,slots=[1-9]\d*\/\d+\)$/);
  });

  it("hides node's environment (where Lambda's credentials live) from same-user processes", async () => {
    // Prepare: a node process and, as the control, an ordinary one, both as the image's user.
    const script = [
      'SECRET=s3cr3t node -e "setTimeout(() => {}, 5000)" & node_pid=$!',
      'SECRET=s3cr3t sleep 5 & sleep_pid=$!',
      'sleep 1',
      'cat /proc/$node_pid/environ >/dev/null 2>&1 && echo node-readable || echo node-hidden',
      'tr "\\0" "\\n" < /proc/$sleep_pid/environ | grep -q SECRET=s3cr3t && echo control-readable',
      'kill $node_pid $sleep_pid',
    ].join('\n');

    // Act
    const probe = await runInside(script);

    // Assess
    expect(probe.stdout.split('\n')).toEqual(['node-hidden', 'control-readable']);
  });
});

describe('R and its packages', () => {
  it('loads every package packages.R declares', async () => {
    const loaded = await runInside(
      `Rscript --vanilla -e 'source("/app/packages.R"); for (p in jube_r_packages) suppressPackageStartupMessages(library(p, character.only = TRUE)); cat(jube_r_packages, sep = "\\n")'`,
    );

    expect(loaded.stderr).toBe('');
    expect(loaded.stdout.split('\n')).toEqual(declaredPackages());
  });

  it('ships a manifest that names exactly what is installed, at the installed versions', async () => {
    // Prepare
    const manifestText = await runInside('cat /app/packages/manifest.json');
    const manifest = PackageManifestSchema.parse(JSON.parse(manifestText.stdout));

    // Act: ask R in the image for the installed version of every package the manifest names.
    const installed = await runInside(
      `Rscript --vanilla -e 'm <- jsonlite::fromJSON("/app/packages/manifest.json"); v <- vapply(m$packages$name, function(p) as.character(packageVersion(p)), ""); cat(paste(names(v), v), sep = "\\n"); cat("\\nR", paste(R.version$major, R.version$minor, sep = "."))'`,
    );

    // Assess
    expect(manifest.declared).toEqual(declaredPackages());
    expect(manifest.packages.filter((p) => p.source === 'packages.R').map((p) => p.name).sort()).toEqual(
      [...declaredPackages()].sort(),
    );
    const lines = installed.stdout.split('\n');
    expect(lines.at(-1)).toBe(`R ${manifest.rVersion}`);
    expect(lines.slice(0, -2)).toEqual(manifest.packages.map((p) => `${p.name} ${p.version}`));
    expect(manifest.rVersion).toMatch(/^4\.5\./);
  });

  it('is what the image build extracted and what a synthesized validate bundle carries, file for file', async () => {
    // Prepare: the image's own package-facts directory, every file with its content.
    const inside = await runInside('cd /app/packages && find . -type f | sort | while read -r f; do printf "%s\\t" "$f"; base64 -w0 "$f"; echo; done');
    const imageFiles = Object.fromEntries(
      inside.stdout.split('\n').filter(Boolean).map((line) => {
        const [name, content] = line.split('\t') as [string, string];
        return [name.replace(/^\.\//, ''), Buffer.from(content, 'base64').toString('utf8')];
      }),
    );
    const extracted = readPackageFacts(DEFAULT_PATHS.packageFactsDirectory);

    // Act: synthesize dev as `cdk synth` does, from the extracted facts.
    const synthesized = synthesize('dev', undefined, { paths: DEFAULT_PATHS });
    try {
      const fn = synthesized.json.Resources[logicalIdOf(synthesized.stack.apiFunction.function)]!;
      const bundle = join(synthesized.outdir, String(fn.Metadata!['aws:asset:path']));

      // Assess
      expect(Object.keys(imageFiles)).toContain('manifest.json');
      expect([...extracted.files]).toEqual(Object.keys(imageFiles).sort());
      for (const [file, content] of Object.entries(imageFiles)) {
        expect(readFileSync(join(extracted.directory, file), 'utf8'), file).toBe(content);
        expect(readFileSync(join(bundle, file), 'utf8'), file).toBe(content);
      }
      expect(extracted.manifest.rVersion).toMatch(/^4\.5\./);
    } finally {
      synthesized.cleanup();
    }
  }, 120_000);
});
