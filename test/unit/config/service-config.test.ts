/** The service configuration's result caps (issue 13): defaults, edges, and room under Lambda's 6 MB. */
import { describe, expect, it } from 'vitest';
import { ConfigError, readServiceConfig } from '../../../layers/config/service-config.ts';

/** Lambda's synchronous invocation response limit. */
const LAMBDA_RESPONSE_BYTES = 6 * 1024 * 1024;

describe('result caps', () => {
  it('defaults: plots sized for a model, caps well under the response limit', () => {
    const config = readServiceConfig({});
    expect(config.plots).toEqual({ maxCount: 10, maxBytes: 1024 * 1024, width: 768, height: 576, dpi: 96 });
    expect(config.files).toEqual({ maxCount: 10, maxBytes: 512 * 1024, maxEntries: 100 });
    expect(config.caps).toMatchObject({ messages: 100, messageBytes: 64 * 1024, valueBytes: 256 * 1024, callBytes: 512, tracebackFrames: 10 });
  });

  it('every capped field of a response at its default cap together stays under 80% of Lambda\'s limit', () => {
    const { caps, plots, files } = readServiceConfig({});
    const base64 = (bytes: number) => Math.ceil(bytes / 3) * 4;
    const worst =
      caps.consoleOutputBytes + 100 + // the console, head and tail, and the omitted line
      caps.resultBytes + // the structured result, parsed out of the console
      caps.errorBytes * 2 + caps.tracebackFrames * (caps.callBytes + 40) + // error, errorDetails
      caps.warningBytes * 2 + caps.warnings * (caps.callBytes + 60) + // warnings, warningDetails
      caps.messageBytes + caps.messages * 4 +
      caps.valueBytes +
      base64(plots.maxBytes) + plots.maxCount * 100 +
      base64(files.maxBytes) + files.maxEntries * 300 + // files, and the listing of out/
      caps.notes * caps.noteBytes;
    expect(worst).toBeLessThan(0.8 * LAMBDA_RESPONSE_BYTES);
  });

  it.each([
    ['JUBE_R_PLOT_WIDTH_PX', '64', '63'],
    ['JUBE_R_PLOT_WIDTH_PX', '2048', '2049'],
    ['JUBE_R_PLOT_DPI', '300', '301'],
    ['JUBE_R_MAX_PLOTS', '0', '-1'],
    ['JUBE_R_MAX_PLOTS', '100', '101'],
    ['JUBE_R_MAX_FILES_BYTES', String(4 * 1024 * 1024), String(4 * 1024 * 1024 + 1)],
    ['JUBE_R_MAX_TRACEBACK_FRAMES', '1', '0'],
    ['JUBE_R_MAX_CALL_BYTES', '64', '63'],
    ['JUBE_R_MAX_RESPONSE_BYTES', '5900000', '5900001'],
    ['JUBE_R_MAX_OUT_ENTRIES', '10000', '10001'],
    ['JUBE_R_MAX_NOTES', '1', '0'],
    ['JUBE_R_POST_RUN_MAX_MS', '100', '99'],
  ])('%s accepts %s and refuses %s, naming the key', (key, edge, beyond) => {
    expect(() => readServiceConfig({ [key]: edge })).not.toThrow();
    expect(() => readServiceConfig({ [key]: beyond })).toThrow(ConfigError);
    expect(() => readServiceConfig({ [key]: beyond })).toThrow(key);
  });
});

describe('isolation', () => {
  it('defaults to session keys and shared tenancy (no TenantId) where no stack says otherwise', () => {
    expect(readServiceConfig({}).isolation).toEqual({ mode: 'session', tenancy: 'SHARED', sharedTenancyReason: undefined });
  });

  it.each(['tenant', 'session', 'run'])('reads JUBE_R_ISOLATION=%s', (mode) => {
    expect(readServiceConfig({ JUBE_R_ISOLATION: mode, JUBE_R_EXECUTE_TENANCY: 'PER_TENANT' }).isolation).toMatchObject({ mode, tenancy: 'PER_TENANT' });
  });

  it('refuses an unknown isolation mode, naming the key', () => {
    expect(() => readServiceConfig({ JUBE_R_ISOLATION: 'call' })).toThrow(/JUBE_R_ISOLATION/);
  });
});
