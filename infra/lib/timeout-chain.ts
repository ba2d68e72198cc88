/**
 * The timeout chain (docs/execute-runtime.md), derived in one place from the environment's maximum
 * script time and its API Gateway integration-timeout quota. Every layer must lose the race to the
 * one inside it, so the caller always gets an explained result instead of a bare gateway timeout:
 *
 *   R setTimeLimit (T <= MAX) < backstop (MAX + grace) < execute Lambda timeout
 *     < execute timeout + cold-start headroom < invoke deadline (Lambda client)
 *     < validate Lambda timeout < API integration timeout <= quota
 *
 * Cold starts: Lambda's init of an execute environment (an image cold start in the VPC; under
 * PER_TENANT a new environment for every isolation key it has none for) is NOT counted in the function
 * timeout. Lambda gives init at most 10 s and then retries it inside the invocation, under the
 * function timeout; so a cold invoke lasts at most `init + execute timeout`, with init <= 10 s.
 * The chain leaves `executeColdStartHeadroomMs` of that on top of the execute timeout. The
 * validate function also derives the invoke's deadline from its own remaining time (an
 * AbortSignal, functions/api/invoke/execute-invoker.ts), keeping `validateResponseReserveMs`
 * to answer: a cold start longer than the headroom on a near-limit script therefore comes back as
 * a clean 504 EXECUTE_DEADLINE from the validate function, never as API Gateway's own 504.
 *
 * Pure: no CDK, no environment. The stack turns the numbers into Lambda timeouts, the integration
 * `timeout` and the JUBE_R_* variables the handlers read (layers/config/service-config.ts).
 */

import { backstopSeconds, executeTimeoutSeconds } from '../../layers/config/timeouts.ts';

/** API Gateway's default integration timeout; more needs a quota increase for the account. */
export const DEFAULT_INTEGRATION_QUOTA_SECONDS = 29;
/** The highest integration timeout API Gateway grants, even with a raised quota. */
export const MAX_INTEGRATION_QUOTA_SECONDS = 300;
/** Lambda's own ceiling for a function timeout. */
export const MAX_LAMBDA_TIMEOUT_SECONDS = 900;
/**
 * Lambda's limit on the init phase of an on-demand environment: past it, init is retried inside
 * the invocation and counts against the function timeout, so more headroom than this never helps.
 */
export const LAMBDA_INIT_LIMIT_MS = 10_000;

export interface TimeoutChainInput {
  /** MAX: the longest a caller may ask a script to run (JUBE_R_SCRIPT_TIMEOUT_SECONDS_MAX). */
  readonly maxScriptSeconds: number;
  /** Seconds between R's setTimeLimit and the handler's backstop killing the process group. */
  readonly killGraceSeconds?: number;
  /** Execute handler work outside the script: start, data download, R start-up, result read, cleanup. */
  readonly executeOverheadSeconds?: number;
  /** Room for an execute cold start (init, outside the function timeout); 0 to 10 000 ms. */
  readonly executeColdStartHeadroomMs?: number;
  /** How much longer the Lambda client waits than a cold execute invocation can last. */
  readonly clientMarginMs?: number;
  /** Validate handler work before the invoke: loading the validator on a cold start, resolving data pointers. */
  readonly validatePreInvokeMs?: number;
  /** What the validate handler keeps after the invoke returns or is aborted: mapping, response. */
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
  /** When the handler kills the process group at the latest: MAX + grace (layers/config/timeouts.ts). */
  readonly backstopSeconds: number;
  readonly executeLambdaTimeoutSeconds: number;
  readonly executeColdStartHeadroomMs: number;
  /** The longest a cold execute invocation is waited for: its timeout plus the cold-start headroom. */
  readonly coldInvokeMs: number;
  /** The invoke's deadline (AbortSignal) when the validate function has the time; JUBE_R_LAMBDA_CLIENT_TIMEOUT_MS. */
  readonly lambdaClientTimeoutMs: number;
  readonly validatePreInvokeMs: number;
  /** Kept from the validate function's remaining time to answer after an abort; JUBE_R_RESPONSE_RESERVE_MS. */
  readonly validateResponseReserveMs: number;
  readonly validateLambdaTimeoutSeconds: number;
  /** LambdaIntegration `timeout` (TimeoutInMillis in the template). */
  readonly apiIntegrationTimeoutMs: number;
  readonly integrationQuotaMs: number;
}

export type TimeoutChainResult =
  | { readonly ok: true; readonly chain: TimeoutChain }
  | { readonly ok: false; readonly problems: readonly string[] };

export const TIMEOUT_CHAIN_DEFAULTS = {
  killGraceSeconds: 2,
  executeOverheadSeconds: 3,
  executeColdStartHeadroomMs: 5_000,
  clientMarginMs: 1000,
  validatePreInvokeMs: 1000,
  validateOverheadMs: 1000,
  integrationMarginMs: 1000,
} as const;

export class TimeoutChainError extends Error {
  override readonly name = 'TimeoutChainError';
}

const isPositiveInt = (n: number): boolean => Number.isInteger(n) && n >= 1;

interface Margins {
  readonly grace: number;
  readonly overhead: number;
  readonly headroom: number;
  readonly clientMargin: number;
  readonly preInvoke: number;
  readonly reserve: number;
  readonly integrationMargin: number;
}

function marginsOf(input: TimeoutChainInput): Margins {
  const d = TIMEOUT_CHAIN_DEFAULTS;
  return {
    grace: input.killGraceSeconds ?? d.killGraceSeconds,
    overhead: input.executeOverheadSeconds ?? d.executeOverheadSeconds,
    headroom: input.executeColdStartHeadroomMs ?? d.executeColdStartHeadroomMs,
    clientMargin: input.clientMarginMs ?? d.clientMarginMs,
    preInvoke: input.validatePreInvokeMs ?? d.validatePreInvokeMs,
    reserve: input.validateOverheadMs ?? d.validateOverheadMs,
    integrationMargin: input.integrationMarginMs ?? d.integrationMarginMs,
  };
}

function inputProblems(input: TimeoutChainInput, m: Margins): string[] {
  const problems: string[] = [];
  const max = input.maxScriptSeconds;
  const quota = input.integrationQuotaSeconds;
  if (!isPositiveInt(max)) problems.push(`maxScriptSeconds must be a whole number >= 1 (got ${max})`);
  if (!isPositiveInt(m.grace)) problems.push(`killGraceSeconds must be a whole number >= 1 (got ${m.grace})`);
  if (!isPositiveInt(m.overhead)) problems.push(`executeOverheadSeconds must be a whole number >= 1 (got ${m.overhead})`);
  if (!Number.isInteger(m.headroom) || m.headroom < 0 || m.headroom > LAMBDA_INIT_LIMIT_MS) {
    problems.push(
      `executeColdStartHeadroomMs must be a whole number of milliseconds in [0, ${LAMBDA_INIT_LIMIT_MS}] ` +
        `(Lambda retries a longer init inside the function timeout; got ${m.headroom})`,
    );
  }
  for (const [name, value] of [
    ['clientMarginMs', m.clientMargin],
    ['validatePreInvokeMs', m.preInvoke],
    ['validateOverheadMs', m.reserve],
    ['integrationMarginMs', m.integrationMargin],
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
  return problems;
}

/** Derives every timeout, or says why the chain cannot nest. Never throws. */
export function deriveTimeoutChain(input: TimeoutChainInput): TimeoutChainResult {
  const m = marginsOf(input);
  const problems = inputProblems(input, m);
  if (problems.length > 0) return { ok: false, problems };

  const max = input.maxScriptSeconds;
  const backstop = backstopSeconds(max, m.grace);
  const executeLambdaTimeoutSeconds = executeTimeoutSeconds(max, m.grace, m.overhead);
  const coldInvokeMs = executeLambdaTimeoutSeconds * 1000 + m.headroom;
  const lambdaClientTimeoutMs = coldInvokeMs + m.clientMargin;
  const validateLambdaTimeoutSeconds = Math.ceil((m.preInvoke + lambdaClientTimeoutMs + m.reserve) / 1000);
  const apiIntegrationTimeoutMs = validateLambdaTimeoutSeconds * 1000 + m.integrationMargin;
  const integrationQuotaMs = input.integrationQuotaSeconds * 1000;

  if (apiIntegrationTimeoutMs > integrationQuotaMs) {
    const largestMax = largestNestingMax(integrationQuotaMs, m);
    const advice =
      largestMax >= 1
        ? `lower maxScriptSeconds to at most ${largestMax}, lower the cold-start headroom, or raise the quota`
        : 'no maxScriptSeconds fits; raise the quota';
    return {
      ok: false,
      problems: [
        `the timeout chain cannot nest under an integration-timeout quota of ${input.integrationQuotaSeconds} s: ` +
          `max script ${max} s + kill grace ${m.grace} s + overhead ${m.overhead} s -> execute Lambda ${executeLambdaTimeoutSeconds} s ` +
          `+ cold-start headroom ${m.headroom} ms -> Lambda client ${lambdaClientTimeoutMs} ms ` +
          `-> validate Lambda ${validateLambdaTimeoutSeconds} s -> API integration ${apiIntegrationTimeoutMs} ms > ${integrationQuotaMs} ms; ${advice}`,
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
      killGraceSeconds: m.grace,
      backstopSeconds: backstop,
      executeLambdaTimeoutSeconds,
      executeColdStartHeadroomMs: m.headroom,
      coldInvokeMs,
      lambdaClientTimeoutMs,
      validatePreInvokeMs: m.preInvoke,
      validateResponseReserveMs: m.reserve,
      validateLambdaTimeoutSeconds,
      apiIntegrationTimeoutMs,
      integrationQuotaMs,
    },
  };
}

/** The largest MAX whose chain still fits the quota (the inverse of the derivation above). */
function largestNestingMax(quotaMs: number, m: Margins): number {
  const validateSeconds = Math.floor((quotaMs - m.integrationMargin) / 1000);
  const clientMs = validateSeconds * 1000 - m.preInvoke - m.reserve;
  const executeSeconds = Math.floor((clientMs - m.clientMargin - m.headroom) / 1000);
  return executeSeconds - m.overhead - m.grace;
}

/** For synthesis: the chain, or a TimeoutChainError listing every problem. */
export function timeoutChainOrThrow(input: TimeoutChainInput): TimeoutChain {
  const result = deriveTimeoutChain(input);
  if (!result.ok) throw new TimeoutChainError(`jube-r timeout chain: ${result.problems.join('; ')}`);
  return result.chain;
}

/**
 * The chain as strictly increasing milliseconds, innermost first; the tests use it to prove
 * nesting rather than trusting the arithmetic above. With no headroom (0 ms) the cold invoke
 * equals the execute timeout, so that step is left out rather than breaking strictness. The
 * validate timeout must also cover its pre-invoke work and response reserve around the client
 * deadline (`validateBudgetMs`), which it may equal.
 */
export function chainInMilliseconds(chain: TimeoutChain): readonly (readonly [string, number])[] {
  return [
    ['R setTimeLimit (MAX)', chain.rLimitMaxSeconds * 1000],
    ['backstop', chain.backstopSeconds * 1000],
    ['execute Lambda timeout', chain.executeLambdaTimeoutSeconds * 1000],
    ...(chain.executeColdStartHeadroomMs > 0 ? [['execute timeout + cold-start headroom', chain.coldInvokeMs] as const] : []),
    ['Lambda client deadline', chain.lambdaClientTimeoutMs],
    ['validate Lambda timeout', chain.validateLambdaTimeoutSeconds * 1000],
    ['API integration timeout', chain.apiIntegrationTimeoutMs],
  ];
}

/** What the validate function must fit in its timeout: pre-invoke work, the invoke deadline, the response. */
export const validateBudgetMs = (chain: TimeoutChain): number =>
  chain.validatePreInvokeMs + chain.lambdaClientTimeoutMs + chain.validateResponseReserveMs;
