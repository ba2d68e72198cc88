/**
 * The documented command itself: `npx cdk synth -c env=<env>` through the real CDK CLI and
 * cdk.json's app, offline (no credentials, no Docker engine), as docs/deploying.md says. The other
 * infra tests build the same app in-process; this one proves the CLI wiring around it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { DEPLOY_OVERRIDES, fixturePackageFacts } from './synth-fixture.ts';

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '../../..');
const out = mkdtempSync(path.join(tmpdir(), 'jube-r-cdk-out-'));

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('npx cdk synth', () => {
  it('synthesizes the prod stack offline with the image asset staged, not built', async () => {
    // No credentials of any kind reach the CLI: a lookup would fail instead of silently working.
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('AWS_')));
    const deploy = Object.entries(DEPLOY_OVERRIDES.prod).flatMap(([key, value]) => ['-c', `${key}=${value}`]);
    const facts = ['-c', `packageFactsDirectory=${fixturePackageFacts()}`];
    await run('npx', ['cdk', 'synth', '-c', 'env=prod', ...deploy, ...facts, '-q', '-o', out], { cwd: REPO, env, timeout: 120_000 });
    const template = JSON.parse(readFileSync(path.join(out, 'JubeR-prod.template.json'), 'utf8')) as {
      Resources: Record<string, { Type: string }>;
    };
    const types = Object.values(template.Resources).map((r) => r.Type);
    expect(types).toEqual(expect.arrayContaining(['AWS::ApiGateway::RestApi', 'AWS::Lambda::Function', 'AWS::S3::Bucket']));
    const assets = JSON.parse(readFileSync(path.join(out, 'JubeR-prod.assets.json'), 'utf8')) as {
      dockerImages: Record<string, unknown>;
    };
    expect(Object.keys(assets.dockerImages)).toHaveLength(1);
  }, 120_000);

  it('refuses to synthesize without the image\'s package facts, naming the command that writes them', async () => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('AWS_')));
    const missing = path.join(out, 'no-facts-here');
    const failure = await run('npx', ['cdk', 'synth', '-c', 'env=dev', '-c', `packageFactsDirectory=${missing}`, '-q', '-o', path.join(out, 'dev')], { cwd: REPO, env, timeout: 120_000 }).then(
      () => undefined,
      (error: { stderr?: string }) => error,
    );
    expect(failure?.stderr).toContain(`no image package facts at ${path.join(missing, 'manifest.json')}: run \`npm run image:build\``);
  }, 120_000);
});
