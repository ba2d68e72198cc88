/**
 * cdk.json carries the feature flags `cdk init` writes for the installed aws-cdk-lib (its
 * recommended-feature-flags.json), and buildApp applies the same ones, so an App built by the
 * tests synthesizes exactly what `npx cdk synth` does.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_CONTEXT, REPOSITORY_ROOT } from '../../../infra/lib/app.ts';

const require = createRequire(import.meta.url);
const recommended = JSON.parse(readFileSync(require.resolve('aws-cdk-lib/recommended-feature-flags.json'), 'utf8')) as Record<string, unknown>;
const cdkJson = JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> };

describe('CDK feature flags', () => {
  it('cdk.json sets every recommended flag of the installed aws-cdk-lib to its recommended value', () => {
    const differing = Object.entries(recommended).filter(([flag, value]) => JSON.stringify(cdkJson.context[flag]) !== JSON.stringify(value));
    expect(differing).toEqual([]);
  });

  it('cdk.json holds nothing else but the default environment', () => {
    expect(Object.keys(cdkJson.context).filter((key) => !(key in recommended))).toEqual(['env']);
  });

  it('apps built outside the CLI get the same flags', () => {
    for (const [flag, value] of Object.entries(recommended)) expect(APP_CONTEXT[flag], flag).toEqual(value);
    expect(APP_CONTEXT['env']).toBeUndefined();
  });
});
