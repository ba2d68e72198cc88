/**
 * The execute handler without R: what it answers and logs when the script never reaches R (the
 * validator's rejection) and when the event is not an ExecuteEvent. The runner tier covers runs.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { describe, expect, it, vi } from 'vitest';
import { InvalidExecuteEventError } from '../../../functions/execute/event.ts';
import { createExecuteHandler } from '../../../functions/execute/create-handler.ts';
import { readServiceConfig } from '../../../layers/config/service-config.ts';
import type { Validator } from '../../../layers/validator/validator.ts';

const refuseAll: Validator = () => ({
  valid: false,
  errors: [{ code: 'CAPABILITY_NOT_AVAILABLE', message: 'no', line: 1, column: 1, symbol: 'system' }],
  lint: [],
  durationMs: 0,
});

function prepare() {
  const logger = new Logger({ serviceName: 'jube-r-test', logLevel: 'SILENT' });
  const info = vi.spyOn(logger, 'info');
  const error = vi.spyOn(logger, 'error');
  const handler = createExecuteHandler({ config: readServiceConfig({}), validator: refuseAll, logger });
  const context = { getRemainingTimeInMillis: () => 10_000, awsRequestId: 'req-7', tenantId: 'acme' };
  return { handler, context, info, error };
}

describe('the execute handler', () => {
  it('answers a script the validator refuses as rejected and logs one line for it', async () => {
    // Prepare
    const { handler, context, info, error } = prepare();
    // Act
    const response = await handler({ script: 'system("id")', timeoutSeconds: 5, requestId: 'api-1' }, context);
    // Assess
    expect(response).toMatchObject({ status: 'rejected', timedOut: false, validation: { valid: false } });
    expect(info).toHaveBeenCalledTimes(1);
    expect(error).not.toHaveBeenCalled();
    const [message, attributes] = info.mock.calls[0]!;
    expect(message).toBe('execute');
    expect(attributes).toMatchObject({
      requestId: 'req-7', apiRequestId: 'api-1', tenant: 'acme', status: 'rejected', timedOut: false, truncated: false,
      responseBytes: Buffer.byteLength(JSON.stringify(response), 'utf8'),
    });
    expect(attributes).not.toHaveProperty('sandboxLayers');
  });

  it('logs an event that is not an ExecuteEvent as a failure and throws it', async () => {
    const { handler, context, info, error } = prepare();
    await expect(handler({ script: 1 }, context)).rejects.toBeInstanceOf(InvalidExecuteEventError);
    expect(info).not.toHaveBeenCalled();
    expect(error).toHaveBeenCalledTimes(1);
    expect(error.mock.calls[0]![1]).toMatchObject({ requestId: 'req-7', tenant: 'acme' });
  });
});
