/** The one log line per execute invocation (invocation-log.ts). */
import { describe, expect, it } from 'vitest';
import { invocationLogAttributes } from '../../../functions/execute/invocation-log.ts';
import type { ExecuteResponse } from '../../../layers/contract/execute.ts';

const response: ExecuteResponse = {
  status: 'ok', consoleOutput: 'é', error: null, warnings: [], timedOut: false, durationMs: 5, rVersion: '4.2.2', timestamp: 't',
};
const context = { getRemainingTimeInMillis: () => 1000, awsRequestId: 'req-1' };

describe('the invocation log line', () => {
  it('carries the request id, status, timing, truncation, response bytes and the sandbox layers', () => {
    const attributes = invocationLogAttributes({ context, apiRequestId: 'api-9', response, durationMs: 17, sandboxLayers: ['rlimits'] });
    expect(attributes).toEqual({
      requestId: 'req-1',
      apiRequestId: 'api-9',
      status: 'ok',
      durationMs: 17,
      timedOut: false,
      truncated: false,
      responseBytes: Buffer.byteLength(JSON.stringify(response), 'utf8'),
      sandboxLayers: ['rlimits'],
    });
  });

  it("names the tenant when Lambda's context has one", () => {
    const attributes = invocationLogAttributes({ context: { ...context, tenantId: 'acme' }, apiRequestId: undefined, response, durationMs: 1, sandboxLayers: undefined });
    expect(attributes['tenant']).toBe('acme');
  });

  it('omits what it does not know: tenant, API request id, layers of a run that never started', () => {
    const attributes = invocationLogAttributes({ context, apiRequestId: undefined, response, durationMs: 1, sandboxLayers: undefined });
    expect(Object.keys(attributes)).not.toContain('tenant');
    expect(Object.keys(attributes)).not.toContain('apiRequestId');
    expect(Object.keys(attributes)).not.toContain('sandboxLayers');
  });

  it('reports a truncated, timed-out response as such', () => {
    const attributes = invocationLogAttributes({
      context: undefined, apiRequestId: undefined, response: { ...response, status: 'error', timedOut: true, truncated: true }, durationMs: 1, sandboxLayers: [],
    });
    expect(attributes).toMatchObject({ requestId: undefined, status: 'error', timedOut: true, truncated: true });
  });
});
