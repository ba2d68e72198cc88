/**
 * docs/local-sam.md's commands match SAM CLI's source for the version the page names: every `sam`
 * command of its shell blocks uses only options that SAM CLI release has for that command, the page
 * names a release at least as new as every feature its commands rely on, and `sam local invoke` gives
 * a `--tenant-id` exactly to the function whose template has a TenancyConfig (SAM refuses the other
 * way round). The options and first releases below were read in aws/aws-sam-cli at the release tags
 * (git show v<version>:<path>), so the test needs no SAM CLI installed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../../infra/lib/app.ts';
import { logicalIdOf, synthesize, type Synthesized } from './synth-fixture.ts';

/** The SAM CLI release whose options are recorded here. */
const RECORDED_RELEASE = '1.156.0';

/**
 * The options of each command at v1.156.0, from `samcli/commands/<command>/core/options.py`
 * (ALL_OPTIONS, which `--help` lists) and the decorators' flag spellings in
 * `samcli/commands/_utils/options.py` and `samcli/commands/local/cli_common/options.py`
 * (`--template-file`/`--template`/`-t`, `--event`/`-e`, `--env-vars`/`-n`, `--port`/`-p`).
 */
const OPTIONS: Readonly<Record<string, readonly string[]>> = {
  build: [
    '--template-file', '--template', '-t', '--parameter-overrides', '--region', '--profile', '--parallel', '--exclude', '--manifest', '--cached',
    '--build-in-source', '--use-container', '--use-buildkit', '--container-env-var', '--container-env-var-file', '--build-image', '--mount-with',
    '--skip-pull-image', '--docker-network', '--mount-symlinks', '--build-dir', '--cache-dir', '--base-dir', '--hook-name', '--skip-prepare-infra',
    '--config-env', '--config-file', '--save-params', '--terraform-project-root-path', '--debug', '--help',
  ],
  'local invoke': [
    '--template-file', '--template', '-t', '--parameter-overrides', '--region', '--profile', '--event', '-e', '--no-event', '--durable-execution-name',
    '--env-vars', '-n', '--container-env-vars', '--debug-port', '--debugger-path', '--debug-args', '--docker-volume-basedir', '--skip-pull-image',
    '--docker-network', '--force-image-build', '--shutdown', '--container-host', '--container-host-interface', '--add-host', '--invoke-image',
    '--runtime', '--tenant-id', '--mount-symlinks', '--no-memory-limit', '--log-file', '--layer-cache-basedir', '--hook-name', '--skip-prepare-infra',
    '--config-env', '--config-file', '--save-params', '--terraform-plan-file', '--debug', '--help',
  ],
  'local start-api': [
    '--template-file', '--template', '-t', '--parameter-overrides', '--region', '--profile', '--host', '--port', '-p', '--ssl-cert-file', '--ssl-key-file',
    '--env-vars', '-n', '--container-env-vars', '--debug-port', '--debugger-path', '--debug-args', '--debug-function', '--docker-volume-basedir',
    '--skip-pull-image', '--docker-network', '--force-image-build', '--no-memory-limit', '--warm-containers', '--shutdown', '--container-host',
    '--container-host-interface', '--add-host', '--invoke-image', '--disable-authorizer', '--log-file', '--layer-cache-basedir', '--static-dir',
    '--config-env', '--config-file', '--save-params', '--hook-name', '--skip-prepare-infra', '--terraform-plan-file', '--debug', '--help',
  ],
  // No --tenant-id: start-lambda reads the tenant from the request's X-Amz-Tenant-Id header
  // (samcli/local/lambda_service/local_lambda_http_service.py).
  'local start-lambda': [
    '--template-file', '--template', '-t', '--parameter-overrides', '--region', '--profile', '--host', '--port', '-p', '--env-vars', '-n',
    '--warm-containers', '--container-env-vars', '--debug-function', '--debug-port', '--debugger-path', '--debug-args', '--docker-volume-basedir',
    '--skip-pull-image', '--docker-network', '--force-image-build', '--shutdown', '--container-host', '--container-host-interface', '--add-host',
    '--invoke-image', '--no-memory-limit', '--log-file', '--layer-cache-basedir', '--hook-name', '--skip-prepare-infra', '--config-env',
    '--config-file', '--save-params', '--terraform-plan-file', '--debug', '--help',
  ],
};

/**
 * The first release whose source has each thing the page relies on: `--use-buildkit`
 * (use_buildkit_click_option, aws/aws-sam-cli#8772, first in v1.156.0), `--tenant-id` and the refusal
 * of a TenancyConfig function without it (samcli/commands/local/invoke/cli.py and
 * samcli/commands/local/lib/local_lambda.py, first in v1.147.1), `nodejs24.x`
 * (samcli/lib/utils/architecture.py, first in v1.147.1).
 */
const FIRST_RELEASE: Readonly<Record<string, string>> = { '--use-buildkit': '1.156.0', '--tenant-id': '1.147.1', 'nodejs24.x': '1.147.1' };

const DOC = readFileSync(join(REPOSITORY_ROOT, 'docs/local-sam.md'), 'utf8');

function samCommands(markdown: string): string[][] {
  const blocks = [...markdown.matchAll(/^[ \t]*```sh\n([\s\S]*?)^[ \t]*```/gm)].map((m) => m[1]!);
  return blocks
    .flatMap((block) => block.replace(/\\\n\s*/g, '').split('\n'))
    .map((line) => line.replace(/\s+#\s.*$/, '').trim())
    .filter((line) => line.startsWith('sam '))
    .map((line) => line.split(/\s+/));
}

const release = (version: string): number[] => version.split('.').map(Number);
const atLeast = (a: string, b: string): boolean => {
  const [x, y] = [release(a), release(b)];
  for (let i = 0; i < 3; i += 1) if (x[i] !== y[i]) return x[i]! > y[i]!;
  return true;
};

const commands = samCommands(DOC);
const subcommandOf = (words: string[]): string => (words[1] === 'local' ? `local ${words[2]}` : words[1]!);
const flagsOf = (words: string[]): string[] => words.filter((w) => w.startsWith('-'));

let dev: Synthesized;
beforeAll(() => {
  dev = synthesize('dev');
}, 120_000);
afterAll(() => dev?.cleanup());

describe('docs/local-sam.md against SAM CLI', () => {
  it(`names SAM CLI ${RECORDED_RELEASE}, the release whose options are recorded, as the minimum`, () => {
    expect(/\*\*SAM CLI (\d+\.\d+\.\d+) or later\*\*/.exec(DOC)?.[1]).toBe(RECORDED_RELEASE);
  });

  it('names a release that has everything its commands and the template rely on', () => {
    const used = new Set([...commands.flatMap(flagsOf), ...(JSON.stringify(dev.json).includes('nodejs24.x') ? ['nodejs24.x'] : [])]);
    const needed = Object.entries(FIRST_RELEASE).filter(([feature]) => used.has(feature));
    expect(needed.map(([feature]) => feature).sort()).toEqual(['--tenant-id', '--use-buildkit', 'nodejs24.x']);
    for (const [feature, first] of needed) expect(atLeast(RECORDED_RELEASE, first), `${feature} needs ${first}`).toBe(true);
  });

  it.each(commands.map((words) => [words.join(' '), words] as const))('%s uses only options that command has', (_line, words) => {
    const options = OPTIONS[subcommandOf(words)];
    expect(options, subcommandOf(words)).toBeDefined();
    for (const flag of flagsOf(words)) expect(options, flag).toContain(flag);
  });

  it('gives --tenant-id to a function with a TenancyConfig and to no other, as SAM requires', () => {
    const invokes = commands.filter((words) => subcommandOf(words) === 'local invoke');
    const functions = new Map(
      [dev.stack.execute.function, dev.stack.apiFunction.function].map((fn) => [logicalIdOf(fn), dev.json.Resources[logicalIdOf(fn)]!.Properties!['TenancyConfig'] !== undefined]),
    );
    expect(invokes.length).toBeGreaterThan(0);
    for (const words of invokes) {
      const target = words.slice(3).find((w, i, all) => !w.startsWith('-') && !(all[i - 1] ?? '').startsWith('-'))!;
      expect(functions.has(target), target).toBe(true);
      expect(words.includes('--tenant-id'), words.join(' ')).toBe(functions.get(target));
    }
    expect([...functions.values()].filter(Boolean)).toHaveLength(1);
  });
});
