/**
 * The API-facing Lambda: GET /health, GET /packages, GET /help, POST /validate, POST /t/{tenant}/execute behind an API
 * Gateway REST proxy integration. The same code serves the local stack (functions/tools/local), which
 * builds the same proxy events from plain HTTP.
 *
 * Middleware order: Powertools' Lambda context -> the edge (errors to responses, one access log
 * line) -> ingress (route, body size, content type, JSON). Everything is loaded lazily and once per
 * execution environment; configuration is read (and fails fast) when the API is created. Importing
 * this module reads nothing: the entry (handler.ts) creates the Lambda's API.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import packageJson from '../../package.json' with { type: 'json' };
import { readServiceConfig } from '../../layers/config/service-config.ts';
import { configuredSandbox } from '../../layers/contract/sandbox-layers.ts';
import { loadHelp } from '../../layers/packages/help.ts';
import { loadManifest, ManifestMissingError } from '../../layers/packages/manifest.ts';
import { loadRules } from '../../layers/rules/rules.ts';
import { basePackagesOnly, manifestPackages, type ValidatorPackages } from '../../layers/validator/package-lists.ts';
import { edge, requestIdOf } from './http/edge.ts';
import { ingress } from './http/ingress.ts';
import { jsonResponse } from './http/response.ts';
import { sessionOf } from './http/session.ts';
import { callerBinding, tenantOfCall } from './http/caller.ts';
import { once, type ApiDeps } from './routes/deps.ts';
import { execute } from './routes/execute.ts';
import { healthAnswer } from './routes/health.ts';
import { help } from './routes/help.ts';
import { packages } from './routes/packages.ts';
import { endSession } from './routes/session.ts';
import { matchRoute } from './routes/table.ts';
import { validate } from './routes/validate.ts';

/** The session header's rule, for the tools that derive a session of their own (the MCP server). */
export { sessionOf, SESSION_HEADER } from './http/session.ts';

export type ApiHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export interface Api {
  readonly handler: ApiHandler;
  /** Loads the validator (grammar, rules, manifest) ahead of the first request. */
  warm(): Promise<void>;
  readonly deps: ApiDeps;
}

export function defaultDeps(overrides: Partial<ApiDeps> = {}): ApiDeps {
  const env = overrides.env ?? process.env;
  const config = overrides.config ?? readServiceConfig(env);
  const rules = overrides.rules ?? once(() => loadRules());
  const manifest = overrides.manifest ?? once(() => loadManifest());
  const logger = overrides.logger ?? new Logger({ serviceName: 'jube-r' });
  /** The manifest's package lists; without a manifest the validator still answers, allowing only the base set. */
  const packagesOrBase = (): ValidatorPackages => {
    try {
      return manifestPackages(manifest());
    } catch (error) {
      if (!(error instanceof ManifestMissingError)) throw error;
      logger.warn('package manifest missing; validating without the installed-package list', { error });
      return basePackagesOnly(rules());
    }
  };
  return {
    env,
    config,
    logger,
    version: packageJson.version,
    startedAt: Date.now(),
    now: Date.now,
    rules,
    manifest,
    help: once(() => loadHelp()),
    validator: once(async () => {
      const { loadValidator } = await import('../../layers/validator/validator.ts');
      return loadValidator({ rules: rules(), ...packagesOrBase() });
    }),
    resolver: once(async () => (await import('./data-pointers/resolve.ts')).createDataPointerResolver(config)),
    invoker: once(async () => (await import('./invoke/execute-invoker.ts')).createExecuteInvoker(config, env)),
    sessions: once(async () => (await import('./sessions/create-store.ts')).createSessionStore(config.sessions)),
    sandbox: async () => configuredSandbox(config.declaredSandboxLayers) ?? { source: 'unknown', layers: [] },
    callers: callerBinding(config, env),
    // Only Lambda itself (no endpoint override) with PER_TENANT is known to keep keys apart; the
    // local stack says what its own runtime does (functions/tools/local/stack.ts).
    isolationBoundary: config.isolation.tenancy === 'PER_TENANT' && config.lambdaEndpoint === undefined ? 'lambda-tenant-isolation' : 'none',
    // Deployed, every execution environment keeps its own warm start; the local stack reports its runtime's.
    warm: async () => ({ state: 'unknown' }),
    ...overrides,
  };
}

export function createApi(overrides: Partial<ApiDeps> = {}): Api {
  const deps = defaultDeps(overrides);

  const route = async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => {
    // The ingress middleware has matched the route and replaced the body with its parsed JSON.
    const matched = matchRoute(event.httpMethod, event.path);
    const body: unknown = event.body;
    switch (matched.route.name) {
      case 'health':
        return jsonResponse(200, await healthAnswer(deps, event.queryStringParameters));
      case 'packages':
        return jsonResponse(200, packages(deps));
      case 'help':
        return jsonResponse(200, help(deps, event.queryStringParameters));
      case 'validate':
        return jsonResponse(200, await validate(deps, body));
      case 'execute':
        return jsonResponse(
          200,
          await execute(deps, {
            body,
            tenant: tenantOfCall(deps.callers, matched.tenant, event.requestContext?.identity),
            session: sessionOf(event.headers),
            requestId: requestIdOf(event, context),
            // The invoke's deadline is derived from what this invocation has left (execute-invoker.ts).
            remainingTimeMs: () => context.getRemainingTimeInMillis(),
          }),
        );
      case 'session':
        return jsonResponse(200, await endSession(deps, tenantOfCall(deps.callers, matched.tenant, event.requestContext?.identity), sessionOf(event.headers)));
    }
  };

  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>()
    .use(injectLambdaContext(deps.logger, { resetKeys: true }))
    .use(edge(deps.logger))
    .use(ingress({ maxBodyBytes: deps.config.maxRequestBodyBytes }))
    .handler(route);

  return {
    handler: (event, context) => handler(event, context),
    warm: async () => {
      deps.rules();
      await deps.validator();
    },
    deps,
  };
}
