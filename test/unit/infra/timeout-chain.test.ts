import { describe, expect, it } from 'vitest';
import {
  chainInMilliseconds,
  deriveTimeoutChain,
  LAMBDA_INIT_LIMIT_MS,
  TimeoutChainError,
  timeoutChainOrThrow,
  validateBudgetMs,
  type TimeoutChainInput,
} from '../../../infra/lib/timeout-chain.ts';

const strictlyIncreasing = (values: readonly number[]): boolean => values.every((v, i) => i === 0 || v > values[i - 1]!);

describe('deriveTimeoutChain', () => {
  it('derives the default chain from MAX 15 s under the 29 s quota, with 5 s of cold-start headroom', () => {
    // Act
    const result = deriveTimeoutChain({ maxScriptSeconds: 15, integrationQuotaSeconds: 29 });

    // Assess
    expect(result).toEqual({
      ok: true,
      chain: {
        rLimitMaxSeconds: 15,
        killGraceSeconds: 2,
        backstopSeconds: 17,
        executeLambdaTimeoutSeconds: 20,
        executeColdStartHeadroomMs: 5_000,
        coldInvokeMs: 25_000,
        lambdaClientTimeoutMs: 26_000,
        validatePreInvokeMs: 1_000,
        validateResponseReserveMs: 1_000,
        validateLambdaTimeoutSeconds: 28,
        apiIntegrationTimeoutMs: 29_000,
        integrationQuotaMs: 29_000,
      },
    });
  });

  it.each<[string, TimeoutChainInput]>([
    ['smallest MAX', { maxScriptSeconds: 1, integrationQuotaSeconds: 29 }],
    ['largest MAX that fits 29 s', { maxScriptSeconds: 15, integrationQuotaSeconds: 29 }],
    ['no cold-start headroom', { maxScriptSeconds: 20, executeColdStartHeadroomMs: 0, integrationQuotaSeconds: 29 }],
    ['the whole init limit as headroom', { maxScriptSeconds: 10, executeColdStartHeadroomMs: LAMBDA_INIT_LIMIT_MS, integrationQuotaSeconds: 29 }],
    ['custom grace and overhead', { maxScriptSeconds: 8, killGraceSeconds: 5, executeOverheadSeconds: 4, integrationQuotaSeconds: 29 }],
    ['raised quota', { maxScriptSeconds: 120, executeOverheadSeconds: 5, executeColdStartHeadroomMs: 10_000, integrationQuotaSeconds: 180, quotaRaisedBy: 'case 123' }],
    ['largest quota', { maxScriptSeconds: 280, integrationQuotaSeconds: 300, quotaRaisedBy: 'case 456' }],
    ['uneven margins', { maxScriptSeconds: 7, clientMarginMs: 250, validatePreInvokeMs: 333, validateOverheadMs: 1750, integrationMarginMs: 50, integrationQuotaSeconds: 29 }],
  ])('nests strictly and fits the quota: %s', (_name, input) => {
    // Act
    const result = deriveTimeoutChain(input);

    // Assess
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const { chain } = result;
    expect(strictlyIncreasing(chainInMilliseconds(chain).map(([, ms]) => ms))).toBe(true);
    // The validate function fits its pre-invoke work, the whole invoke deadline and its answer.
    expect(chain.validateLambdaTimeoutSeconds * 1000).toBeGreaterThanOrEqual(validateBudgetMs(chain));
    // A cold invoke (init outside the function timeout, at most the headroom) ends before the client gives up.
    expect(chain.lambdaClientTimeoutMs).toBeGreaterThan(chain.executeLambdaTimeoutSeconds * 1000 + chain.executeColdStartHeadroomMs);
    expect(chain.apiIntegrationTimeoutMs).toBeLessThanOrEqual(input.integrationQuotaSeconds * 1000);
    expect(chain.rLimitMaxSeconds).toBe(input.maxScriptSeconds);
    expect(Number.isInteger(chain.executeLambdaTimeoutSeconds)).toBe(true);
    expect(Number.isInteger(chain.validateLambdaTimeoutSeconds)).toBe(true);
  });

  it.each<[string, TimeoutChainInput, RegExp]>([
    ['MAX 300 s under the default 29 s quota', { maxScriptSeconds: 300, integrationQuotaSeconds: 29 }, /cannot nest.*29 s.*lower maxScriptSeconds to at most 15/],
    ['one second too many', { maxScriptSeconds: 16, integrationQuotaSeconds: 29 }, /cannot nest.*at most 15/],
    ['MAX 20 s once cold starts are accounted for', { maxScriptSeconds: 20, integrationQuotaSeconds: 29 }, /cold-start headroom 5000 ms/],
    ['MAX 300 s even with the largest quota', { maxScriptSeconds: 300, integrationQuotaSeconds: 300, quotaRaisedBy: 'case' }, /cannot nest.*300 s/],
    ['a quota too small for any MAX', { maxScriptSeconds: 1, integrationQuotaSeconds: 12 }, /no maxScriptSeconds fits; raise the quota/],
    ['more headroom than Lambda ever gives init', { maxScriptSeconds: 5, executeColdStartHeadroomMs: 10_001, integrationQuotaSeconds: 29 }, /executeColdStartHeadroomMs.*\[0, 10000\]/],
    ['a negative headroom', { maxScriptSeconds: 5, executeColdStartHeadroomMs: -1, integrationQuotaSeconds: 29 }, /executeColdStartHeadroomMs/],
    ['a raised quota nobody stated', { maxScriptSeconds: 60, integrationQuotaSeconds: 90 }, /above API Gateway's default 29 s; state the raised quota/],
    ['a blank statement of the raised quota', { maxScriptSeconds: 60, integrationQuotaSeconds: 90, quotaRaisedBy: '  ' }, /state the raised quota/],
    ['a quota above 300 s', { maxScriptSeconds: 60, integrationQuotaSeconds: 301, quotaRaisedBy: 'case' }, /quota must be a whole number of seconds in \[1, 300\]/],
    ['a fractional MAX', { maxScriptSeconds: 2.5, integrationQuotaSeconds: 29 }, /maxScriptSeconds must be a whole number/],
    ['MAX zero', { maxScriptSeconds: 0, integrationQuotaSeconds: 29 }, /maxScriptSeconds must be a whole number >= 1/],
    ['no kill grace', { maxScriptSeconds: 10, killGraceSeconds: 0, integrationQuotaSeconds: 29 }, /killGraceSeconds/],
    ['a negative margin', { maxScriptSeconds: 10, clientMarginMs: -1, integrationQuotaSeconds: 29 }, /clientMarginMs/],
    ['no time to answer after an abort', { maxScriptSeconds: 10, validateOverheadMs: 0, integrationQuotaSeconds: 29 }, /validateOverheadMs/],
  ])('refuses %s', (_name, input, message) => {
    // Act
    const result = deriveTimeoutChain(input);

    // Assess
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.join('; ')).toMatch(message);
  });

  it('names the whole chain in the message so the operator sees where it breaks', () => {
    const result = deriveTimeoutChain({ maxScriptSeconds: 300, integrationQuotaSeconds: 29 });

    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems[0]).toContain('execute Lambda 305 s + cold-start headroom 5000 ms');
    expect(result.problems[0]).toContain('API integration 314000 ms > 29000 ms');
  });

  it('the suggested largest MAX is exactly the boundary, for every quota and headroom', () => {
    for (const headroom of [0, 5_000, 10_000]) {
      for (let quota = 15; quota <= 300; quota += 1) {
        const input = { executeColdStartHeadroomMs: headroom, integrationQuotaSeconds: quota, ...(quota > 29 ? { quotaRaisedBy: 'case' } : {}) };
        const probe = deriveTimeoutChain({ ...input, maxScriptSeconds: 900 });
        expect(probe.ok).toBe(false);
        if (probe.ok) return;
        const stated = /at most (\d+)/.exec(probe.problems[0]!)?.[1];
        if (stated === undefined) {
          expect(deriveTimeoutChain({ ...input, maxScriptSeconds: 1 }).ok, `quota ${quota}, headroom ${headroom}`).toBe(false);
          continue;
        }
        const largest = Number(stated);
        expect(deriveTimeoutChain({ ...input, maxScriptSeconds: largest }).ok, `quota ${quota}, headroom ${headroom}`).toBe(true);
        expect(deriveTimeoutChain({ ...input, maxScriptSeconds: largest + 1 }).ok).toBe(false);
      }
    }
  });
});

describe('timeoutChainOrThrow', () => {
  it('returns the chain when it nests', () => {
    expect(timeoutChainOrThrow({ maxScriptSeconds: 15, integrationQuotaSeconds: 29 }).apiIntegrationTimeoutMs).toBe(29_000);
  });

  it('throws a TimeoutChainError naming the problem when it does not', () => {
    expect(() => timeoutChainOrThrow({ maxScriptSeconds: 300, integrationQuotaSeconds: 29 })).toThrowError(TimeoutChainError);
    expect(() => timeoutChainOrThrow({ maxScriptSeconds: 300, integrationQuotaSeconds: 29 })).toThrowError(
      /jube-r timeout chain: the timeout chain cannot nest/,
    );
  });
});
