#!/usr/bin/env node
// The `jube-r` command (package.json "bin"): loads the TypeScript CLI through tsx so the
// same sources run here, under vitest and in the esbuild bundles.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../functions/tools/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
