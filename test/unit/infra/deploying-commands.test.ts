/**
 * docs/deploying.md is true: every `npx cdk` command in its shell code blocks runs as written through
 * the real CDK CLI and cdk.json's app, offline: no credentials reach the CLI (a lookup would fail
 * instead of silently working), and none of them writes cdk.context.json. A `deploy` runs up to its
 * AWS call (the same arguments, as `synth`), a `bootstrap` as the template it would deploy
 * (`--show-template`). What the AWS calls beside them would have produced is supplied here: the
 * package facts pulled from the documented image (scripts/image-facts.sh), and the deployed template
 * a `diff --template` compares against. Each command writes its assembly to a directory of its own
 * (`-o`): cdk.out is shared by every synthesis on the machine.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../../infra/lib/app.ts';
import { FIXTURE_IMAGE_DIGEST, fixturePackageFacts } from './synth-fixture.ts';

const run = promisify(execFile);
const DOC = readFileSync(path.join(REPOSITORY_ROOT, 'docs/deploying.md'), 'utf8');
const CONTEXT_FILE = path.join(REPOSITORY_ROOT, 'cdk.context.json');
const out = mkdtempSync(path.join(tmpdir(), 'jube-r-deploying-'));
/** No credentials of any kind: a lookup or an AWS call fails loudly. */
const OFFLINE_ENV = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('AWS_') && !key.startsWith('CDK_')));

/** The shell commands of a markdown document's ```sh blocks (indented ones too): continuations joined, comments dropped. */
function shellCommands(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^[ \t]*```sh\n([\s\S]*?)^[ \t]*```/gm)].map((m) => m[1]!);
  return blocks
    .flatMap((block) => block.replace(/\\\n\s*/g, '').split('\n'))
    .map((line) => line.replace(/\s+#\s.*$/, '').trim())
    .filter(Boolean);
}

const cdkCommands = shellCommands(DOC).filter((line) => line.startsWith('npx cdk '));

interface Outcome {
  readonly command: string;
  readonly offline: string;
  readonly ok: boolean;
  readonly output: string;
}

/** What runs offline for a documented command, and where its assembly goes. */
function offlineForm(command: string, outdir: string): string {
  const [, verb] = /^npx cdk (\S+)/.exec(command)!;
  if (verb === 'bootstrap') return `${command} --show-template`;
  const synthesized = verb === 'deploy' ? command.replace(/^npx cdk deploy\b/, 'npx cdk synth') : command;
  return `${synthesized} -o ${outdir}`;
}

const envName = (command: string) => /-c env=(\w+)/.exec(command)?.[1] ?? 'dev';
const imageDigest = (command: string) => /-c executeImageUri=\S+@(sha256:[0-9a-f]{64})/.exec(command)?.[1] ?? FIXTURE_IMAGE_DIGEST;
const deployedTemplate = (command: string) => /--template (\S+)/.exec(command)?.[1];

async function runOffline(command: string, index: number, templates: Map<string, string>): Promise<Outcome> {
  const outdir = path.join(out, String(index));
  const offline = offlineForm(command, outdir);
  // The template deployed last, which `aws cloudformation get-template` would have saved: here, this
  // very environment's synthesis (a diff of the stack against itself, as after a deploy).
  const saved = deployedTemplate(command);
  if (saved) {
    mkdirSync(path.dirname(path.join(REPOSITORY_ROOT, saved)), { recursive: true });
    copyFileSync(templates.get(envName(command))!, path.join(REPOSITORY_ROOT, saved));
  }
  try {
    const { stdout, stderr } = await run('bash', ['-c', offline], {
      cwd: REPOSITORY_ROOT,
      env: { ...OFFLINE_ENV, JUBE_R_PACKAGE_FACTS_DIR: fixturePackageFacts(imageDigest(command)) },
      timeout: 240_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { command, offline, ok: true, output: `${stdout}\n${stderr}` };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    return { command, offline, ok: false, output: `${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}` };
  } finally {
    if (saved) rmSync(path.join(REPOSITORY_ROOT, saved), { force: true });
  }
}

const outcomes = new Map<string, Outcome>();

beforeAll(async () => {
  expect(existsSync(CONTEXT_FILE), 'a cdk.context.json left in the repository would hide one written here').toBe(false);
  // Syntheses first (two at a time: two cores), then what compares against their templates.
  const indexed = cdkCommands.map((command, index) => ({ command, index }));
  const first = indexed.filter(({ command }) => !deployedTemplate(command));
  const templates = new Map<string, string>();
  for (let i = 0; i < first.length; i += 2) {
    const batch = await Promise.all(first.slice(i, i + 2).map(({ command, index }) => runOffline(command, index, templates)));
    for (const [j, outcome] of batch.entries()) {
      outcomes.set(outcome.command, outcome);
      const { command, index } = first[i + j]!;
      if (/^npx cdk synth\b/.test(command)) {
        const stack = `JubeR-${envName(command)}`;
        templates.set(envName(command), path.join(out, String(index), `${stack}.template.json`));
      }
    }
  }
  for (const { command, index } of indexed.filter(({ command }) => deployedTemplate(command))) {
    outcomes.set(command, await runOffline(command, index, templates));
  }
}, 900_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("docs/deploying.md's cdk commands", () => {
  it('synthesize each environment, diff, deploy and bootstrap, every one with the documented account', () => {
    const verbs = cdkCommands.map((c) => /^npx cdk (\S+)/.exec(c)![1]);
    expect(new Set(verbs)).toEqual(new Set(['synth', 'bootstrap', 'diff', 'deploy']));
    expect(new Set(cdkCommands.filter((c) => c.startsWith('npx cdk synth')).map(envName))).toEqual(new Set(['dev', 'staging', 'prod']));
    for (const command of cdkCommands.filter((c) => !c.startsWith('npx cdk bootstrap'))) expect(command).toContain('-c account=123456789012');
  });

  it.each(cdkCommands)('%s', (command) => {
    const outcome = outcomes.get(command)!;
    expect(outcome.ok, `${outcome.offline}\n${outcome.output.slice(-4000)}`).toBe(true);
    if (/^npx cdk (synth|deploy)\b/.test(command)) {
      // The assembly is there, and a concrete account did not turn into a lookup.
      const stack = `JubeR-${envName(command)}`;
      const template = JSON.parse(readFileSync(path.join(out, String(cdkCommands.indexOf(command)), `${stack}.template.json`), 'utf8')) as {
        Resources: Record<string, { Type: string }>;
      };
      expect(Object.values(template.Resources).map((r) => r.Type)).toEqual(expect.arrayContaining(['AWS::ApiGateway::RestApi', 'AWS::Lambda::Function']));
    }
    if (command.startsWith('npx cdk diff')) expect(outcome.output).toMatch(/Number of stacks with differences: \d/);
    if (command.startsWith('npx cdk bootstrap')) expect(outcome.output).toContain('CdkBootstrapVersion');
  });

  it('write no cdk.context.json: nothing was looked up', () => {
    expect(outcomes.size).toBe(cdkCommands.length);
    expect(existsSync(CONTEXT_FILE)).toBe(false);
  });
});

describe('npx cdk synth without the package facts', () => {
  it("refuses, naming the command that writes them", async () => {
    const missing = path.join(out, 'no-facts-here');
    const failure = await run('npx', ['cdk', 'synth', '-c', 'env=dev', '-c', `packageFactsDirectory=${missing}`, '-q', '-o', path.join(out, 'no-facts')], {
      cwd: REPOSITORY_ROOT,
      env: OFFLINE_ENV,
      timeout: 120_000,
    }).then(
      () => undefined,
      (error: { stderr?: string }) => error,
    );
    expect(failure?.stderr).toContain(`no image package facts at ${path.join(missing, 'manifest.json')}: run \`npm run image:build\``);
  }, 120_000);
});
