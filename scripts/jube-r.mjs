#!/usr/bin/env node
// The `jube-r` command (package.json "bin"): loads the TypeScript CLI through tsx so the
// same sources run here, under vitest and in the esbuild bundles.
import { register } from 'tsx/esm/api';

// The deployed functions run on Lambda's Node 24; locally package.json's engines admit Node 20, for
// which the AWS SDK prints, on its first client, that its releases after January 2027 will need
// Node 22. package-lock.json pins a release that runs here, so the notice is not about this install:
// the SDK's own switch for it is set (Node's other warnings still print). An explicit value wins.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

register();
const { main } = await import('../functions/tools/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
