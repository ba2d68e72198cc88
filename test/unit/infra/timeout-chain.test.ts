import { describe, expect, it } from 'vitest';
import {
  chainInMilliseconds,
  deriveTimeoutChain,
  TimeoutChainError,
  timeoutChainOrThrow,
  type TimeoutChainInput,
} from '../../../infra/lib/timeout-chain.ts';

const strictlyIncreasing = (values: readonly number[]): boolean => values.every((v, i) => i === 0 || v > values[i - 1]!);

describe('deriveTimeoutChain', () => {
  it('derives the default chain from MAX 20 s under the 29 s quota', () => {
    // Act
    const result = deriveTimeoutChain({ maxScriptSeconds: 20, integrationQuotaSeconds: 29 });

    // Assess
    expect(result).toEqual({
      ok: true,
      chain: {
        rLimitMaxSeconds: 20,
        killGraceSeconds: 2,
        runnerKillSeconds: 22,
        executeLambdaTimeoutSeconds: 25,
        lambdaClientTimeoutMs: 26_000,
        validateLambdaTimeoutSeconds: 27,
        apiIntegrationTimeoutMs: 28_000,
        integrationQuotaMs: 29_000,
      },
    });
  });

  it.each<[string, TimeoutChainInput]>([
    ['smallest MAX', { maxScriptSeconds: 1, integrationQuotaSeconds: 29 }],
    ['largest MAX that fits 29 s', { maxScriptSeconds: 21, integrationQuotaSeconds: 29 }],
    ['custom grace and overhead', { maxScriptSeconds: 10, killGraceSeconds: 5, executeOverheadSeconds: 4, integrationQuotaSeconds: 29 }],
    ['raised quota', { maxScriptSeconds: 120, executeOverheadSeconds: 5, integrationQuotaSeconds: 180, quotaRaisedBy: 'case 123' }],
    ['largest quota', { maxScriptSeconds: 290, integrationQuotaSeconds: 300, quotaRaisedBy: 'case 456' }],
    ['uneven margins', { maxScriptSeconds: 7, clientMarginMs: 250, validateOverheadMs: 1750, integrationMarginMs: 50, integrationQuotaSeconds: 29 }],
  ])('nests strictly and fits the quota: %s', (_name, input) => {
    // Act
    const result = deriveTimeoutChain(input);

    // Assess
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const chain = chainInMilliseconds(result.chain).map(([, ms]) => ms);
    expect(strictlyIncreasing(chain)).toBe(true);
    expect(result.chain.apiIntegrationTimeoutMs).toBeLessThanOrEqual(input.integrationQuotaSeconds * 1000);
    expect(result.chain.rLimitMaxSeconds).toBe(input.maxScriptSeconds);
    expect(Number.isInteger(result.chain.executeLambdaTimeoutSeconds)).toBe(true);
    expect(Number.isInteger(result.chain.validateLambdaTimeoutSeconds)).toBe(true);
  });

  it.each<[string, TimeoutChainInput, RegExp]>([
    ['MAX 300 s under the default 29 s quota', { maxScriptSeconds: 300, integrationQuotaSeconds: 29 }, /cannot nest.*29 s.*lower maxScriptSeconds to at most 21/],
    ['one second too many', { maxScriptSeconds: 22, integrationQuotaSeconds: 29 }, /cannot nest.*at most 21/],
    ['MAX 300 s even with the largest quota', { maxScriptSeconds: 300, integrationQuotaSeconds: 300, quotaRaisedBy: 'case' }, /cannot nest.*300 s/],
    ['a quota too small for any MAX', { maxScriptSeconds: 1, integrationQuotaSeconds: 5 }, /no maxScriptSeconds fits; raise the quota/],
    ['a raised quota nobody stated', { maxScriptSeconds: 60, integrationQuotaSeconds: 90 }, /above API Gateway's default 29 s; state the raised quota/],
    ['a blank statement of the raised quota', { maxScriptSeconds: 60, integrationQuotaSeconds: 90, quotaRaisedBy: '  ' }, /state the raised quota/],
    ['a quota above 300 s', { maxScriptSeconds: 60, integrationQuotaSeconds: 301, quotaRaisedBy: 'case' }, /quota must be a whole number of seconds in \[1, 300\]/],
    ['a fractional MAX', { maxScriptSeconds: 2.5, integrationQuotaSeconds: 29 }, /maxScriptSeconds must be a whole number/],
    ['MAX zero', { maxScriptSeconds: 0, integrationQuotaSeconds: 29 }, /maxScriptSeconds must be a whole number >= 1/],
    ['no kill grace', { maxScriptSeconds: 10, killGraceSeconds: 0, integrationQuotaSeconds: 29 }, /killGraceSeconds/],
    ['a negative margin', { maxScriptSeconds: 10, clientMarginMs: -1, integrationQuotaSeconds: 29 }, /clientMarginMs/],
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
    expect(result.problems[0]).toContain('execute Lambda 305 s');
    expect(result.problems[0]).toContain('API integration 308000 ms > 29000 ms');
  });

  it('the suggested largest MAX is exactly the boundary, for every quota', () => {
    for (let quota = 9; quota <= 300; quota += 1) {
      const raised = quota > 29 ? { quotaRaisedBy: 'case' } : {};
      const probe = deriveTimeoutChain({ maxScriptSeconds: 900, integrationQuotaSeconds: quota, ...raised });
      expect(probe.ok).toBe(false);
      if (probe.ok) return;
      const largest = Number(/at most (\d+)/.exec(probe.problems[0]!)?.[1]);
      expect(deriveTimeoutChain({ maxScriptSeconds: largest, integrationQuotaSeconds: quota, ...raised }).ok).toBe(true);
      expect(deriveTimeoutChain({ maxScriptSeconds: largest + 1, integrationQuotaSeconds: quota, ...raised }).ok).toBe(false);
    }
  });
});

describe('timeoutChainOrThrow', () => {
  it('returns the chain when it nests', () => {
    expect(timeoutChainOrThrow({ maxScriptSeconds: 20, integrationQuotaSeconds: 29 }).apiIntegrationTimeoutMs).toBe(28_000);
  });

  it('throws a TimeoutChainError naming the problem when it does not', () => {
    expect(() => timeoutChainOrThrow({ maxScriptSeconds: 300, integrationQuotaSeconds: 29 })).toThrowError(TimeoutChainError);
    expect(() => timeoutChainOrThrow({ maxScriptSeconds: 300, integrationQuotaSeconds: 29 })).toThrowError(
      /jube-r timeout chain: the timeout chain cannot nest/,
    );
  });
});
