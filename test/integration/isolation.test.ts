/**
 * Isolation keys over the local stack (a separate `jube-r serve` process, host R), configured as a
 * PER_TENANT deployment: the tenant and X-Jube-Session reach the execute invocation as its TenantId
 * (the execute handler logs the TenantId its Lambda context carries), the headers are validated at
 * the edge, and /health says plainly that the host-R runtime cannot keep keys apart.
 * (test/image/local-stack-container.test.ts shows the container runtime doing so.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBodySchema, HealthSummarySchema, routePath } from '../../layers/contract/api.ts';
import { ExecuteResponseSchema } from '../../layers/contract/execute.ts';
import { request, startStack, type RunningStack } from './local-stack.ts';

let stack: RunningStack;

beforeAll(async () => {
  // INFO, so the execute handler's one log line per invocation (with its tenant) is printed.
  stack = await startStack({ JUBE_R_EXECUTE_TENANCY: 'PER_TENANT', JUBE_R_ISOLATION: 'session', POWERTOOLS_LOG_LEVEL: 'INFO' });
});
afterAll(async () => {
  await stack?.stop();
});

const execute = (tenant: string, headers: Record<string, string> = {}) =>
  request(`${stack.url}${routePath('execute', tenant)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ script: 'cat(6 * 7)' }),
  });

/** The tenants the execute handler logged, in order. */
const loggedTenants = (): string[] =>
  stack
    .output()
    .split('\n')
    .flatMap((line) => {
      try {
        const entry = JSON.parse(line) as { message?: unknown; tenant?: unknown };
        return entry.message === 'execute' && typeof entry.tenant === 'string' ? [entry.tenant] : [];
      } catch {
        return [];
      }
    });

describe('the local stack as a PER_TENANT deployment', () => {
  it('reports PER_TENANT and session keys in /health, and that host R keeps no keys apart', async () => {
    const { status, json } = await request(`${stack.url}/health`);
    expect(status).toBe(200);
    expect(HealthSummarySchema.parse(json).isolation).toEqual({ tenancy: 'PER_TENANT', mode: 'session', boundary: 'none', maxTenantEnvironments: 5, tenantBinding: 'unchecked' });
  });

  it("passes the path's tenant and the session to the execute invocation as its TenantId", async () => {
    const answers = [
      await execute('acme', { 'x-jube-session': 'agent-1' }),
      await execute('acme', { 'X-Jube-Session': 'agent-2' }),
      await execute('acme'),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(ExecuteResponseSchema.parse(answer.json).consoleOutput).toBe('42');
    }
    // The log line is written after the answer; give the stack a moment to flush it.
    const deadline = Date.now() + 5_000;
    while (loggedTenants().length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(loggedTenants()).toEqual(['acme_agent-1', 'acme_agent-2', 'acme']);
  });

  it.each([
    ['a malformed tenant', 'Acme', {}, 'INVALID_TENANT'],
    ['a malformed session', 'acme', { 'x-jube-session': 'Agent 1' }, 'INVALID_SESSION'],
    ['a session one character too long', 'acme', { 'x-jube-session': 'a'.repeat(64) }, 'INVALID_SESSION'],
  ])('refuses %s with 400 before anything runs', async (_name, tenant, headers, code) => {
    const { status, json } = await execute(tenant, headers);
    expect(status).toBe(400);
    expect(ErrorBodySchema.parse(json).code).toBe(code);
  });
});
