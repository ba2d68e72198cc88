/**
 * The execute function makes no AWS call, so it needs no AWS credential and its role needs nothing
 * but what the platform writes for it (logs, traces; infra stack.test.ts): the execute handler's
 * bundle, built with the options the image uses (infra/lib/image-context.ts), contains no module of
 * the AWS SDK or of Smithy (the SDK's runtime). A script that owns its environment finds no client
 * code to borrow and the function code no reason to hold a credential.
 * Control: the same check finds the SDK in the validate function's bundle, which does invoke Lambda.
 */
import { buildSync } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ESM_REQUIRE_BANNER } from '../../../infra/lib/esm-bundle.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const AWS_CLIENT_CODE = /(^|\/)node_modules\/(@aws-sdk|@smithy|aws-sdk)\//;

/** Every input file esbuild put into the bundle of `entry`. */
function bundledInputs(entry: string): string[] {
  const result = buildSync({
    entryPoints: [join(root, entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    banner: { js: ESM_REQUIRE_BANNER },
    write: false,
    metafile: true,
    logLevel: 'silent',
    outfile: 'out.mjs',
  });
  return Object.keys(result.metafile.inputs);
}

describe('the execute function makes no AWS call', () => {
  it('bundles no AWS SDK or Smithy module', () => {
    const inputs = bundledInputs('functions/execute/handler.ts');
    expect(inputs.length).toBeGreaterThan(10);
    expect(inputs.filter((file) => AWS_CLIENT_CODE.test(file))).toEqual([]);
  });

  it('control: the validate function, which invokes Lambda, does bundle the SDK', () => {
    const inputs = bundledInputs('functions/api/handler.ts');
    expect(inputs.some((file) => file.includes('node_modules/@aws-sdk/client-lambda/'))).toBe(true);
    expect(inputs.some((file) => AWS_CLIENT_CODE.test(file))).toBe(true);
  });
});
