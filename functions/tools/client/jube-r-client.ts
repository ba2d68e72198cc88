/**
 * A typed client for the jube-r API, for the orchestrator: the deployed private API (SigV4 for
 * `execute-api`, signed with the AWS SDK's own signer) or the local stack (unsigned, or signed when
 * the stack checks JUBE_R_LOCAL_SIGV4_* keys). Requests and responses are the contract's zod types;
 * every 200 body is parsed with its schema, every error becomes a JubeRApiError with the stable code.
 *
 * Retries: only answers that say nothing ran are retried, at most `maxRetries` times:
 * 503 (THROTTLED) after its `Retry-After` seconds, and API Gateway's 429 stage throttle after its
 * `Retry-After` or a short backoff; never beyond `maxRetryAfterSeconds`. A timeout, a network error
 * or a 504 is never retried on any route: on /execute the script may have run (and may still be
 * running), and running it twice is the caller's decision, not this client's.
 */
import { z } from 'zod';
import { ExecuteResponseSchema, type ExecuteResponse } from '../../../layers/contract/execute.ts';
import { ValidationResultSchema, type ValidationResult } from '../../../layers/contract/validation.ts';
import {
  ErrorBodySchema,
  HealthResponseSchema,
  PackagesResponseSchema,
  SessionEndResponseSchema,
  type SessionEndResponse,
  type ErrorBody,
  type ErrorCode,
  type executeRequestSchema,
  type HealthResponse,
  type PackagesResponse,
  type ValidateRequest,
  routePath,
  routeTemplate,
} from '../../../layers/contract/api.ts';
import { executeApiSigner, regionOfExecuteApiHost, signRequest, type Credentials } from './sigv4.ts';

export type { ErrorBody, ErrorCode, ExecuteResponse, HealthResponse, PackagesResponse, ValidateRequest };
export type ValidateResponse = ValidationResult;
/** What a caller may send to /execute (before the server's defaults and clamping). */
export type ExecuteRequest = z.input<ReturnType<typeof executeRequestSchema>>;

export interface JubeRClientOptions {
  /** The API's base URL, stage included: `https://<api>.execute-api.<region>.amazonaws.com/<stage>` (stack output ApiUrl). */
  readonly baseUrl: string;
  /** AWS credentials (or a provider, e.g. the SDK's default chain) to sign with; omit to send unsigned. */
  readonly credentials?: Credentials;
  /** Signing region; default: the one in an execute-api host name. */
  readonly region?: string;
  /**
   * The tenant of /t/{tenant}/execute unless a call names its own. Where the deployment binds tenants
   * to identities it must be the tenant the credentials' role session is named after (docs/deploying.md).
   */
  readonly tenant?: string;
  /**
   * X-Jube-Session for /execute unless a call names its own: calls of one session share a warm
   * execution environment, and no two sessions ever share one (where the deployment isolates by session).
   */
  readonly session?: string;
  /**
   * The deployment's stack output OrchestratorMinimumHttpTimeoutMs: a second past API Gateway's own
   * 504, so a caller that gives up earlier leaves a script running (and holding concurrency) whose
   * answer it never reads. Required for any URL but the local stack's; every timeout must exceed it.
   */
  readonly minimumHttpTimeoutMs?: number;
  /** Per attempt; default minimumHttpTimeoutMs + CLIENT_DEFAULTS.timeoutMarginMs (the local stack: CLIENT_DEFAULTS.localTimeoutMs). */
  readonly timeoutMs?: number;
  readonly maxRetries?: number;
  readonly maxRetryAfterSeconds?: number;
  readonly fetch?: typeof fetch;
  readonly sleep?: (ms: number) => Promise<void>;
  /** The signing clock (tests). */
  readonly now?: () => Date;
}

export interface CallOptions {
  readonly tenant?: string;
  readonly session?: string;
  readonly timeoutMs?: number;
}

export const CLIENT_DEFAULTS = {
  /** The local stack's (no API Gateway in front, so no minimum of its own). */
  localTimeoutMs: 30_000,
  /** How far past the deployment's minimum the default timeout lies. */
  timeoutMarginMs: 5_000,
  maxRetries: 2,
  maxRetryAfterSeconds: 30,
  /** 429 without Retry-After: 0.5 s, 1 s, 2 s, ... */
  backoffBaseMs: 500,
} as const;

/** The API answered with an error (the contract's body, or API Gateway's own `{message}`). */
export class JubeRApiError extends Error {
  override readonly name = 'JubeRApiError';
  constructor(
    readonly status: number,
    /** The contract's stable code; undefined for API Gateway's own answers (403 IAM, 429, 504...). */
    readonly code: ErrorCode | undefined,
    message: string,
    readonly requestId: string | undefined,
    /** API Gateway's `x-amzn-ErrorType` (e.g. InvalidSignatureException), when it answered itself. */
    readonly gatewayErrorType: string | undefined,
    readonly attempts: number,
    readonly body: ErrorBody | undefined,
    /** The answer's JSON as sent, for fields a route adds to the error body (e.g. /help's `suggestions`). */
    readonly json?: unknown,
  ) {
    super(message);
  }
}

/** No answer within the timeout. On /execute the script may have run; it was not retried. */
export class JubeRTimeoutError extends Error {
  override readonly name = 'JubeRTimeoutError';
  constructor(readonly route: ClientRoute, readonly timeoutMs: number, options?: ErrorOptions) {
    super(`no answer from ${CLIENT_ROUTES[route].method} ${routeTemplate(route)} within ${timeoutMs} ms; not retried`, options);
  }
}

/** A 200 whose body is not what the contract says. */
export class JubeRContractError extends Error {
  override readonly name = 'JubeRContractError';
}

/** The routes `jube-r call` names (their paths: layers/contract/api.ts). */
export const ROUTES = {
  health: { method: 'GET' },
  packages: { method: 'GET' },
  validate: { method: 'POST' },
  execute: { method: 'POST' },
  // DELETE /t/{tenant}/session: ends the session the client's (or the call's) session names.
  session: { method: 'DELETE' },
} as const;
export type RouteName = keyof typeof ROUTES;
/** The routes `jube-r call` names, and GET /help (a query, not a body). */
const CLIENT_ROUTES = { ...ROUTES, help: { method: 'GET' } } as const;
type ClientRoute = keyof typeof CLIENT_ROUTES;

export type RetryDecision = { readonly retry: true; readonly afterMs: number } | { readonly retry: false };

/**
 * Whether an answer is retried, and after how long. Pure. `attempt` counts from 1. Only answers
 * that guarantee nothing ran qualify (see the module comment).
 */
export function retryDecision(
  status: number,
  retryAfterHeader: string | null,
  attempt: number,
  limits: { readonly maxRetries: number; readonly maxRetryAfterSeconds: number; readonly backoffBaseMs: number },
): RetryDecision {
  if (attempt > limits.maxRetries || (status !== 503 && status !== 429)) return { retry: false };
  const stated = retryAfterHeader !== null && /^\d+$/.test(retryAfterHeader.trim()) ? Number(retryAfterHeader) : undefined;
  if (stated === undefined && status === 503) return { retry: false };
  const afterMs = stated !== undefined ? stated * 1000 : limits.backoffBaseMs * 2 ** (attempt - 1);
  return afterMs <= limits.maxRetryAfterSeconds * 1000 ? { retry: true, afterMs } : { retry: false };
}

/** GET /help: an installed topic's help page as text; the route may add fields beyond these. */
export const HelpAnswerSchema = z.looseObject({ topic: z.string(), package: z.string(), text: z.string() });
export type HelpAnswer = z.infer<typeof HelpAnswerSchema>;
export interface HelpQuery {
  readonly topic: string;
  readonly package?: string;
}

export interface JubeRClient {
  health(options?: CallOptions): Promise<HealthResponse>;
  packages(options?: CallOptions): Promise<PackagesResponse>;
  validate(request: ValidateRequest, options?: CallOptions): Promise<ValidateResponse>;
  execute(request: ExecuteRequest, options?: CallOptions): Promise<ExecuteResponse>;
  /** Ends the session (its workspace is deleted); needs a tenant and a session. */
  endSession(options?: CallOptions): Promise<SessionEndResponse>;
  help(query: HelpQuery, options?: CallOptions): Promise<HelpAnswer>;
}

export function createJubeRClient(options: JubeRClientOptions): JubeRClient {
  const base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
  const fetchImpl = options.fetch ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const limits = {
    maxRetries: options.maxRetries ?? CLIENT_DEFAULTS.maxRetries,
    maxRetryAfterSeconds: options.maxRetryAfterSeconds ?? CLIENT_DEFAULTS.maxRetryAfterSeconds,
    backoffBaseMs: CLIENT_DEFAULTS.backoffBaseMs,
  };
  const region = options.region ?? regionOfExecuteApiHost(base.hostname);
  if (options.credentials && region === undefined) {
    throw new TypeError(`cannot tell the signing region from ${base.hostname}; pass region`);
  }
  const signer = options.credentials ? executeApiSigner(region!, options.credentials) : undefined;
  const defaultTimeoutMs = httpTimeoutMs(base, options.minimumHttpTimeoutMs, options.timeoutMs);

  async function call<S extends z.ZodType>(
    route: ClientRoute,
    schema: S,
    body: unknown,
    callOptions: CallOptions,
    query: Readonly<Record<string, string | undefined>> = {},
  ): Promise<z.infer<S>> {
    const { method } = CLIENT_ROUTES[route];
    const tenantRoute = route === 'execute' || route === 'session';
    const tenant = tenantRoute ? (callOptions.tenant ?? options.tenant) : undefined;
    if (tenantRoute && tenant === undefined) {
      throw new TypeError(`${route} needs a tenant (its path is ${routeTemplate(route)}): pass tenant to the client or the call`);
    }
    // Relative to the base URL, which carries the stage.
    const url = new URL(routePath(route, tenant).slice(1), base);
    for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, value);
    const text = body === undefined ? undefined : JSON.stringify(body);
    const session = tenantRoute ? (callOptions.session ?? options.session) : undefined;
    if (route === 'session' && session === undefined) throw new TypeError('session needs a session id: pass session to the client or the call');
    const headers: Record<string, string> = {
      host: url.host,
      ...(text === undefined ? {} : { 'content-type': 'application/json' }),
      ...(session === undefined ? {} : { 'x-jube-session': session }),
    };
    const timeoutMs = callOptions.timeoutMs === undefined ? defaultTimeoutMs : httpTimeoutMs(base, options.minimumHttpTimeoutMs, callOptions.timeoutMs);

    for (let attempt = 1; ; attempt += 1) {
      // Signed per attempt: a retry after Retry-After must carry a fresh date.
      const signed = signer ? await signRequest(signer, { method, url, headers, body: text }, options.now?.()) : headers;
      const { host: _host, ...sent } = signed; // fetch sets Host from the URL (the same value)
      let response: Response;
      try {
        // A timer of our own rather than AbortSignal.timeout: one clock (the process's timers) for every wait here.
        const controller = new AbortController();
        const timer = setTimeout(() => controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
        try {
          response = await fetchImpl(url, { method, headers: sent, ...(text === undefined ? {} : { body: text }), signal: controller.signal });
        } finally {
          clearTimeout(timer);
        }
      } catch (error) {
        if ((error as Error)?.name === 'TimeoutError' || (error as Error)?.name === 'AbortError') throw new JubeRTimeoutError(route, timeoutMs, { cause: error });
        throw error;
      }
      const answer = await response.text();
      if (response.ok) return parseAnswer(schema, answer, route);
      const decision = retryDecision(response.status, response.headers.get('retry-after'), attempt, limits);
      if (!decision.retry) throw apiError(response, answer, attempt);
      await sleep(decision.afterMs);
    }
  }

  return {
    // The whole answer: the limits and rules are what a client reads /health for.
    health: (o = {}) => call('health', HealthResponseSchema, undefined, o, { detail: 'full' }),
    packages: (o = {}) => call('packages', PackagesResponseSchema, undefined, o),
    validate: (request, o = {}) => call('validate', ValidationResultSchema, request, o),
    execute: (request, o = {}) => call('execute', ExecuteResponseSchema, request, o),
    endSession: (o = {}) => call('session', SessionEndResponseSchema, undefined, o),
    help: (query, o = {}) => call('help', HelpAnswerSchema, undefined, o, { topic: query.topic, package: query.package }),
  };
}

/** The local stack's addresses: the only ones that need no deployment minimum. */
export function isLocalUrl(url: URL): boolean {
  return ['127.0.0.1', 'localhost', '[::1]', '::1'].includes(url.hostname);
}

/**
 * The per-attempt timeout: the one asked for, which must exceed the deployment's minimum, or by
 * default the minimum plus a margin. A deployed API without its minimum is refused: nothing here
 * can know how long that stack lets a script run. Pure.
 */
export function httpTimeoutMs(base: URL, minimumMs: number | undefined, askedMs: number | undefined): number {
  if (minimumMs === undefined && !isLocalUrl(base)) {
    throw new TypeError(`${base.origin} is not the local stack: pass minimumHttpTimeoutMs (the stack output OrchestratorMinimumHttpTimeoutMs)`);
  }
  if (minimumMs !== undefined && askedMs !== undefined && askedMs <= minimumMs) {
    throw new TypeError(`timeoutMs ${askedMs} must exceed the deployment's OrchestratorMinimumHttpTimeoutMs (${minimumMs}): a shorter wait abandons scripts that are still running`);
  }
  if (askedMs !== undefined) return askedMs;
  return minimumMs === undefined ? CLIENT_DEFAULTS.localTimeoutMs : minimumMs + CLIENT_DEFAULTS.timeoutMarginMs;
}

function parseAnswer<S extends z.ZodType>(schema: S, text: string, route: ClientRoute): z.infer<S> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new JubeRContractError(`${route}: the 200 body is not JSON`, { cause });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new JubeRContractError(`${route}: the 200 body does not match the contract: ${parsed.error.message}`, { cause: parsed.error });
  return parsed.data;
}

function apiError(response: Response, text: string, attempts: number): JubeRApiError {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const body = ErrorBodySchema.safeParse(json);
  const gatewayMessage = (json as { message?: unknown } | undefined)?.message;
  const message = body.success
    ? `${response.status} ${body.data.code}: ${body.data.message}`
    : `${response.status}: ${typeof gatewayMessage === 'string' ? gatewayMessage : text.slice(0, 200)}`;
  return new JubeRApiError(
    response.status,
    body.success ? body.data.code : undefined,
    message,
    body.success ? body.data.requestId : (response.headers.get('x-amzn-requestid') ?? undefined),
    response.headers.get('x-amzn-errortype') ?? undefined,
    attempts,
    body.success ? body.data : undefined,
    json,
  );
}
