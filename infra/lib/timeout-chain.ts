/**
 * The timeout chain (DESIGN.md section 4), derived in one place from the environment's maximum
 * script time and its API Gateway integration-timeout quota. Every layer must lose the race to the
 * one inside it, so the caller always gets an explained result instead of a bare gateway timeout:
 *
 *   R setTimeLimit (T <= MAX) < runner kill (MAX + grace) < execute Lambda timeout
 *     < Lambda client request timeout < validate Lambda timeout < API integration timeout <= quota
 *
 * Pure: no CDK, no environment. The stack turns the numbers into Lambda timeouts, the integration
 * `timeout` and the JUBE_R_* variables the handlers read (layers/config/service-config.ts).
 */

/** API Gateway's default integration timeout; more needs a quota increase for the account. */
export const DEFAULT_INTEGRATION_QUOTA_SECONDS = 29;
/** The highest integration timeout API Gateway grants, even with a raised quota. */
export const MAX_INTEGRATION_QUOTA_SECONDS = 300;
/** Lambda's own ceiling for a function timeout. */
export const MAX_LAMBDA_TIMEOUT_SECONDS = 900;

export interface TimeoutChainInput {
  /** MAX: the longest a caller may ask a script to run (JUBE_R_SCRIPT_TIMEOUT_SECONDS_MAX). */
  readonly maxScriptSeconds: number;
  /** Seconds between R's setTimeLimit and the runner killing the process group. */
  readonly killGraceSeconds?: number;
  /** Execute handler work outside the script: start, data download, R start-up, result read, cleanup. */
  readonly executeOverheadSeconds?: number;
  /** How much longer the Lambda client waits than the execute function can live. */
  readonly clientMarginMs?: number;
  /** Validate handler work after the invoke returns (or times out): mapping, response. */
  readonly validateOverheadMs?: number;
  /** How much longer API Gateway waits than the validate function can live. */
  readonly integrationMarginMs?: number;
  /** The account's integration-timeout quota in seconds (29 unless raised, never above 300). */
  readonly integrationQuotaSeconds: number;
  /** Evidence that the quota was raised (e.g. the Service Quotas request id); required above 29 s. */
  readonly quotaRaisedBy?: string;
}

export interface TimeoutChain {
  /** Upper bound of the per-call R limit T (T is clamped to [1, MAX] per call). */
  readonly rLimitMaxSeconds: number;
  readonly killGraceSeconds: number;
  /** When the runner kills the process group at the latest: MAX + grace. */
  readonly runnerKillSeconds: number;
  readonly executeLambdaTimeoutSeconds: number;
  readonly lambdaClientTimeoutMs: number;
  readonly validateLambdaTimeoutSeconds: number;
  /** LambdaIntegration `timeout` (TimeoutInMillis in the template). */
  readonly apiIntegrationTimeoutMs: number;
  readonly integrationQuotaMs: number;
}

export type TimeoutChainResult =
  | { readonly ok: true; readonly chain: TimeoutChain }
  | { readonly ok: false; readonly problems: readonly string[] };

const TIMEOUT_CHAIN_DEFAULTS = {
  killGraceSeconds: 2,
  executeOverheadSeconds: 3,
  clientMarginMs: 1000,
  validateOverheadMs: 1000,
  integrationMarginMs: 1000,
} as const;

export class TimeoutChainError extends Error {
  override readonly name = 'TimeoutChainError';
}

const isPositiveInt = (n: number): boolean => Number.isInteger(n) && n >= 1;

/** Derives every timeout, or says why the chain cannot nest. Never throws. */
export function deriveTimeoutChain(input: TimeoutChainInput): TimeoutChainResult {
  const grace = input.killGraceSeconds ?? TIMEOUT_CHAIN_DEFAULTS.killGraceSeconds;
  const overhead = input.executeOverheadSeconds ?? TIMEOUT_CHAIN_DEFAULTS.executeOverheadSeconds;
  const clientMargin = input.clientMarginMs ?? TIMEOUT_CHAIN_DEFAULTS.clientMarginMs;
  const validateOverhead = input.validateOverheadMs ?? TIMEOUT_CHAIN_DEFAULTS.validateOverheadMs;
  const integrationMargin = input.integrationMarginMs ?? TIMEOUT_CHAIN_DEFAULTS.integrationMarginMs;
  const max = input.maxScriptSeconds;
  const quota = input.integrationQuotaSeconds;

  const problems: string[] = [];
  if (!isPositiveInt(max)) problems.push(`maxScriptSeconds must be a whole number >= 1 (got ${max})`);
  if (!isPositiveInt(grace)) problems.push(`killGraceSeconds must be a whole number >= 1 (got ${grace})`);
  if (!isPositiveInt(overhead)) problems.push(`executeOverheadSeconds must be a whole number >= 1 (got ${overhead})`);
  for (const [name, value] of [
    ['clientMarginMs', clientMargin],
    ['validateOverheadMs', validateOverhead],
    ['integrationMarginMs', integrationMargin],
  ] as const) {
    if (!isPositiveInt(value)) problems.push(`${name} must be a whole number of milliseconds >= 1 (got ${value})`);
  }
  if (!isPositiveInt(quota) || quota > MAX_INTEGRATION_QUOTA_SECONDS) {
    problems.push(
      `the integration-timeout quota must be a whole number of seconds in [1, ${MAX_INTEGRATION_QUOTA_SECONDS}] (got ${quota})`,
    );
  } else if (quota > DEFAULT_INTEGRATION_QUOTA_SECONDS && !input.quotaRaisedBy?.trim()) {
    problems.push(
      `an integration-timeout quota of ${quota} s is above API Gateway's default ${DEFAULT_INTEGRATION_QUOTA_SECONDS} s; ` +
        'state the raised quota (quotaRaisedBy: the Service Quotas request) or lower it',
    );
  }
  if (problems.length > 0) return { ok: false, problems };

  const runnerKillSeconds = max + grace;
  const executeLambdaTimeoutSeconds = runnerKillSeconds + overhead;
  const lambdaClientTimeoutMs = executeLambdaTimeoutSeconds * 1000 + clientMargin;
  const validateLambdaTimeoutSeconds = Math.ceil((lambdaClientTimeoutMs + validateOverhead) / 1000);
  const apiIntegrationTimeoutMs = validateLambdaTimeoutSeconds * 1000 + integrationMargin;
  const integrationQuotaMs = quota * 1000;

  if (apiIntegrationTimeoutMs > integrationQuotaMs) {
    const largestMax = largestNestingMax(integrationQuotaMs, grace, overhead, clientMargin, validateOverhead, integrationMargin);
    const advice =
      largestMax >= 1
        ? `lower maxScriptSeconds to at most ${largestMax} or raise the quota`
        : 'no maxScriptSeconds fits; raise the quota';
    return {
      ok: false,
      problems: [
        `the timeout chain cannot nest under an integration-timeout quota of ${quota} s: ` +
          `max script ${max} s + kill grace ${grace} s + overhead ${overhead} s -> execute Lambda ${executeLambdaTimeoutSeconds} s ` +
          `-> Lambda client ${lambdaClientTimeoutMs} ms -> validate Lambda ${validateLambdaTimeoutSeconds} s ` +
          `-> API integration ${apiIntegrationTimeoutMs} ms > ${integrationQuotaMs} ms; ${advice}`,
      ],
    };
  }
  if (validateLambdaTimeoutSeconds > MAX_LAMBDA_TIMEOUT_SECONDS) {
    return { ok: false, problems: [`the validate Lambda would need ${validateLambdaTimeoutSeconds} s, above Lambda's ${MAX_LAMBDA_TIMEOUT_SECONDS} s`] };
  }

  return {
    ok: true,
    chain: {
      rLimitMaxSeconds: max,
      killGraceSeconds: grace,
      runnerKillSeconds,
      executeLambdaTimeoutSeconds,
      lambdaClientTimeoutMs,
      validateLambdaTimeoutSeconds,
      apiIntegrationTimeoutMs,
      integrationQuotaMs,
    },
  };
}

/** The largest MAX whose chain still fits the quota (the inverse of the derivation above). */
function largestNestingMax(
  quotaMs: number,
  grace: number,
  overhead: number,
  clientMargin: number,
  validateOverhead: number,
  integrationMargin: number,
): number {
  const validateSeconds = Math.floor((quotaMs - integrationMargin) / 1000);
  const clientMs = validateSeconds * 1000 - validateOverhead;
  const executeSeconds = Math.floor((clientMs - clientMargin) / 1000);
  return executeSeconds - overhead - grace;
}

/** For synthesis: the chain, or a TimeoutChainError listing every problem. */
export function timeoutChainOrThrow(input: TimeoutChainInput): TimeoutChain {
  const result = deriveTimeoutChain(input);
  if (!result.ok) throw new TimeoutChainError(`jube-r timeout chain: ${result.problems.join('; ')}`);
  return result.chain;
}

/**
 * The chain as strictly increasing milliseconds, innermost first; the tests use it to prove
 * nesting rather than trusting the arithmetic above.
 */
export function chainInMilliseconds(chain: TimeoutChain): readonly (readonly [string, number])[] {
  return [
    ['R setTimeLimit (MAX)', chain.rLimitMaxSeconds * 1000],
    ['runner kill', chain.runnerKillSeconds * 1000],
    ['execute Lambda timeout', chain.executeLambdaTimeoutSeconds * 1000],
    ['Lambda client request timeout', chain.lambdaClientTimeoutMs],
    ['validate Lambda timeout', chain.validateLambdaTimeoutSeconds * 1000],
    ['API integration timeout', chain.apiIntegrationTimeoutMs],
  ];
}
