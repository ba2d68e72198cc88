import { afterEach, describe, expect, it, vi } from 'vitest';
import { callClientOptions, parseCallArguments } from '../../../../functions/tools/cli/call-command.ts';
import { CLIENT_DEFAULTS, createJubeRClient, JubeRTimeoutError } from '../../../../functions/tools/client/jube-r-client.ts';
import { resolveDeploymentConfig } from '../../../../infra/lib/config.ts';
import { orchestratorMinimumHttpTimeoutMs } from '../../../../infra/lib/jube-r-stack.ts';
import { timeoutChainOrThrow } from '../../../../infra/lib/timeout-chain.ts';
import { DEPLOY_OVERRIDES } from '../../infra/synth-fixture.ts';
import { UsageError } from '../../../../functions/tools/cli/script-arguments.ts';

describe('jube-r call arguments', () => {
  it('takes the tenant and the session apart from the script arguments', () => {
    const call = parseCallArguments(['execute', 's.R', '--tenant', 'acme', '--session', 'chat-7', '--var', 'n=1'], { JUBE_R_API_URL: 'http://127.0.0.1:8080' });
    expect(call).toMatchObject({ route: 'execute', tenant: 'acme', session: 'chat-7', rest: ['s.R', '--var', 'n=1'] });
  });

  it('leaves the session out when none is given', () => {
    expect(parseCallArguments(['health'], { JUBE_R_API_URL: 'http://127.0.0.1:8080' }).session).toBeUndefined();
  });

  it('refuses --session without a value', () => {
    expect(() => parseCallArguments(['execute', 's.R', '--tenant', 'acme', '--session'], { JUBE_R_API_URL: 'http://127.0.0.1:8080' })).toThrow(UsageError);
  });

  it('needs --tenant for execute (its path is /t/{tenant}/execute), and takes none for the other routes', () => {
    const local = { JUBE_R_API_URL: 'http://127.0.0.1:8080' };
    expect(() => parseCallArguments(['execute', 's.R'], local)).toThrow(/execute needs --tenant/);
    expect(() => parseCallArguments(['health', '--tenant', 'acme'], local)).toThrow(/health takes no --tenant/);
  });
});

describe('jube-r call against a deployed (prod-shaped) API', () => {
  const url = 'https://abc1234567.execute-api.eu-west-1.amazonaws.com/prod';
  /** What prod's stack outputs as OrchestratorMinimumHttpTimeoutMs, from its own timeout chain. */
  const prodMinimum = () => {
    const config = resolveDeploymentConfig('prod', DEPLOY_OVERRIDES.prod);
    return orchestratorMinimumHttpTimeoutMs(
      timeoutChainOrThrow({
        maxScriptSeconds: config.timeouts.maxScriptSeconds,
        killGraceSeconds: config.timeouts.killGraceSeconds,
        executeOverheadSeconds: config.timeouts.executeOverheadSeconds,
        executeColdStartHeadroomMs: config.timeouts.executeColdStartHeadroomSeconds * 1000,
        integrationQuotaSeconds: config.timeouts.integrationQuota.seconds,
        quotaRaisedBy: config.timeouts.integrationQuota.raisedBy!,
      }),
    );
  };

  afterEach(() => vi.useRealTimers());

  it('refuses a deployed URL without the stack\'s minimum HTTP timeout, and a timeout at or below it', () => {
    expect(() => parseCallArguments(['health', '--url', url], {})).toThrow(/OrchestratorMinimumHttpTimeoutMs.*--min-http-timeout or JUBE_R_MIN_HTTP_TIMEOUT_MS/);
    expect(() => parseCallArguments(['health', '--url', url, '--min-http-timeout', '142000', '--http-timeout', '142000'], {})).toThrow(/must exceed/);
    expect(parseCallArguments(['health'], { JUBE_R_API_URL: 'http://127.0.0.1:8080' }).httpTimeoutMs).toBe(CLIENT_DEFAULTS.localTimeoutMs);
  });

  it('waits longer than prod\'s minimum HTTP timeout before giving up', async () => {
    // Prepare: prod's minimum from the environment, as an operator exports the stack output; an API that never answers.
    vi.useFakeTimers();
    const minimum = prodMinimum();
    expect(minimum).toBeGreaterThan(CLIENT_DEFAULTS.localTimeoutMs);
    const call = parseCallArguments(['health', '--url', url], { JUBE_R_MIN_HTTP_TIMEOUT_MS: String(minimum) });
    const silent = ((_url: unknown, init: RequestInit = {}) =>
      new Promise<Response>((_resolve, reject) => init.signal!.addEventListener('abort', () => reject(init.signal!.reason)))) as typeof fetch;
    const client = createJubeRClient({ ...callClientOptions(call, {}), fetch: silent });

    // Act
    let settled: unknown;
    const pending = client.health().catch((error: unknown) => (settled = error));
    await vi.advanceTimersByTimeAsync(minimum);
    const afterMinimum = settled;
    await vi.advanceTimersByTimeAsync(CLIENT_DEFAULTS.timeoutMarginMs);
    await pending;

    // Assess: still waiting at the minimum; given up (not retried) only after it.
    expect(afterMinimum).toBeUndefined();
    expect(settled).toBeInstanceOf(JubeRTimeoutError);
    expect((settled as JubeRTimeoutError).timeoutMs).toBe(minimum + CLIENT_DEFAULTS.timeoutMarginMs);
  });
});
