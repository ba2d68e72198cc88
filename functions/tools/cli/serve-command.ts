/**
 * `jube-r serve` (and `npm start`): the local stack on JUBE_R_HOST:JUBE_R_PORT
 * (default 127.0.0.1:8080). Listens before anything slow is loaded (the validator warms in the
 * background) and stops cleanly on SIGINT/SIGTERM with no R process left behind.
 */
import { ConfigError } from '../../../layers/config/service-config.ts';
import { ROUTES, routePath } from '../../../layers/contract/api.ts';
import { startLocalStack } from '../local/stack.ts';
import { isHelp, type Command } from './command.ts';

function port(env: NodeJS.ProcessEnv, key: string, fallback: number): number {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65_535) {
    throw new ConfigError(`${key} must be a port number between 0 and 65535, not ${JSON.stringify(raw)}`);
  }
  return value;
}

/** The README's example tenant; locally no IAM binds tenants, so any name serves (`tenantBinding: unchecked`). */
const EXAMPLE_TENANT = 'demo';

export const curlExample = (url: string): string =>
  `curl -s -X POST ${url}${routePath('execute', EXAMPLE_TENANT)} -H 'Content-Type: application/json' -d '{"script":"x <- c(1, 2, 3)\\nprint(mean(x))"}'`;

export const USAGE = `usage: jube-r serve

Serves GET /health, GET /packages, GET /help, POST /validate and POST /t/{tenant}/execute on JUBE_R_HOST:JUBE_R_PORT
(default 127.0.0.1:8080) through the real handlers, with host R; Ctrl-C stops it and every R
process it started. Configure it with JUBE_R_HOST, JUBE_R_PORT and the other JUBE_R_* variables.

  -h, --help   this help`;

const command: Command = async (args) => {
  if (args.length === 1 && isHelp(args[0])) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (args.length > 0) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const env = process.env;
  let stack;
  try {
    stack = await startLocalStack({
      host: env['JUBE_R_HOST'] || '127.0.0.1',
      port: port(env, 'JUBE_R_PORT', 8080),
      lambdaPort: port(env, 'JUBE_R_LAMBDA_PORT', 0),
      env,
    });
  } catch (error) {
    process.stderr.write(`jube-r serve: ${(error as Error).message}\n`);
    return error instanceof ConfigError ? 2 : 1;
  }

  const lambda = stack.localLambda
    ? `local Lambda endpoint ${stack.lambdaEndpoint} (runtime ${stack.runtimeKind}, at most ${stack.config.maxInflightExecute} executions at once)`
    : `Lambda endpoint ${stack.lambdaEndpoint} (JUBE_R_LAMBDA_ENDPOINT)`;
  process.stdout.write(
    [
      `jube-r listening on ${stack.url}`,
      `  function ${stack.config.executeFunctionName} via ${lambda}`,
      `  routes: ${Object.entries(ROUTES).map(([path, route]) => `${route.method} ${path}`).join(', ')}`,
      ...(stack.sigV4 ? ['  IAM authorization: requests must be SigV4-signed for execute-api with the JUBE_R_LOCAL_SIGV4_* key pair'] : []),
      `try:`,
      `  ${curlExample(stack.url)}`,
      '',
    ].join('\n'),
  );

  stack.warm().catch((error: unknown) => {
    process.stderr.write(`jube-r serve: warming up failed (requests will retry): ${(error as Error).message}\n`);
  });

  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  process.stdout.write(`jube-r: ${signal}, shutting down\n`);
  // A second signal, or a shutdown that hangs, still ends the process.
  const force = () => process.exit(1);
  process.once('SIGINT', force);
  process.once('SIGTERM', force);
  const hung = setTimeout(force, 15_000);
  hung.unref();
  await stack.close();
  process.stdout.write('jube-r: stopped\n');
  // Nothing of ours is left; lingering keep-alive sockets of the SDK must not hold the exit.
  setTimeout(() => process.exit(0), 200).unref();
  return 0;
};
export default command;
