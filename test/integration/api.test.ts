/**
 * The local stack over real HTTP from a separate process, with real R: every route, every
 * ingress error, and the outcomes of /execute (result, script error, rejection, timeout, clamping).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecuteResponseSchema } from '../../layers/contract/execute.ts';
import { loadManifest } from '../../layers/packages/manifest.ts';
import { loadRules } from '../../layers/rules/rules.ts';
import { ErrorBodySchema, HealthResponseSchema, HealthSummarySchema, HelpResponseSchema, PackagesResponseSchema } from '../../layers/contract/api.ts';
import { BELOW_R_LAYERS } from '../../layers/contract/sandbox-layers.ts';
import { ValidationResultSchema } from '../../layers/contract/validation.ts';
import { execa } from 'execa';
import { baselineMs } from '../load-tolerant.ts';
import { postJson, REPO, request, startStack, type RunningStack } from './local-stack.ts';

const MAX_BODY = 4096;
let stack: RunningStack;

beforeAll(async () => {
  stack = await startStack({
    JUBE_R_MAX_REQUEST_BODY_BYTES: String(MAX_BODY),
    // Generous for a loaded machine (R alone may take seconds to start), small enough to clamp to.
    JUBE_R_SCRIPT_TIMEOUT_SECONDS: '6',
    JUBE_R_SCRIPT_TIMEOUT_SECONDS_MAX: '6',
    JUBE_R_KILL_GRACE_SECONDS: '1',
  });
});
afterAll(async () => {
  await stack?.stop();
});

/** A /validate body of exactly `bytes` bytes. */
function validateBodyOf(bytes: number): string {
  const shell = JSON.stringify({ script: '' });
  return JSON.stringify({ script: '#'.repeat(bytes - shell.length) });
}

describe('the local stack', () => {
  it('starts in under 3 seconds (or three times its own CLI\'s start on a loaded machine) and prints where it listens and a ready-to-paste curl example', async () => {
    // The same entry, up to its usage text: what any start costs on this machine now.
    const helpMs = await baselineMs(() => execa(process.execPath, [`${REPO}/scripts/jube-r.mjs`, 'serve', '--help']));
    expect(stack.startMs).toBeLessThan(Math.max(3000, 3 * helpMs));
    expect(stack.output()).toContain(`jube-r listening on ${stack.url}`);
    expect(stack.output()).toMatch(new RegExp(`curl -s -X POST ${stack.url}/t/demo/execute -H 'Content-Type: application/json' -d '\\{"script":`));
  });

  it('serves a small GET /health, and with ?detail=full the live rules and limits', async () => {
    const small = await request(`${stack.url}/health`);
    expect(HealthSummarySchema.parse(small.json)).toMatchObject({ status: 'ok', sandbox: { source: 'detected' } });
    const answer = await request(`${stack.url}/health?detail=full`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    const health = HealthResponseSchema.parse(answer.json);
    expect(health.rules).toEqual(loadRules());
    expect(health.limits).toMatchObject({ maxRequestBodyBytes: MAX_BODY, scriptTimeoutSecondsMax: 6, maxInflightExecute: 2 });
    expect(health.limits).toMatchObject({ maxPlots: 10, maxPlotsBytes: 1024 * 1024, plotWidthDefault: 768, maxPlotPixels: 2048, maxFiles: 10, maxValueBytes: 256 * 1024 });
    expect(health.sandbox.source).toBe('detected');
    expect(health.sandbox.layers).toContain('fresh-rscript-per-call');
    expect(health.sandbox.sandboxed).toBe(health.sandbox.layers.some((layer) => BELOW_R_LAYERS.includes(layer)));
  });

  it('serves GET /packages from the manifest', async () => {
    const answer = await request(`${stack.url}/packages`);
    expect(answer.status).toBe(200);
    const blocked = new Set(loadRules().packages.blocked.map((b) => b.name));
    expect(PackagesResponseSchema.parse(answer.json).packages).toEqual(loadManifest().packages.filter((p) => !blocked.has(p.name)));
  });

  it('serves GET /help from the query string, and a miss with the nearest topics', async () => {
    const page = await request(`${stack.url}/help?topic=${encodeURIComponent('[.data.frame')}&package=base`);
    expect(page.status).toBe(200);
    expect(HelpResponseSchema.parse(page.json)).toMatchObject({ topic: '[.data.frame', package: 'base', page: 'Extract.data.frame' });
    const miss = await request(`${stack.url}/help?topic=mutat`);
    expect(miss.status).toBe(404);
    const error = ErrorBodySchema.parse(miss.json);
    expect(error.code).toBe('HELP_TOPIC_NOT_FOUND');
    expect(error.suggestions?.[0]).toEqual({ topic: 'mutate', package: 'dplyr' });
  });

  it('validates with POST /validate', async () => {
    const ok = await postJson(`${stack.url}/validate`, { script: 'mean(c(1, 2))' });
    const bad = await postJson(`${stack.url}/validate`, { script: 'system("id")' });
    expect(ValidationResultSchema.parse(ok.json).valid).toBe(true);
    expect(ValidationResultSchema.parse(bad.json)).toMatchObject({ valid: false, errors: [{ code: 'CAPABILITY_NOT_AVAILABLE', symbol: 'system' }] });
  });
});

describe('ingress errors over HTTP', () => {
  it('accepts exactly the maximum body and refuses one byte more with 413', async () => {
    const atMax = await postJson(`${stack.url}/validate`, validateBodyOf(MAX_BODY));
    const over = await postJson(`${stack.url}/validate`, validateBodyOf(MAX_BODY + 1));
    expect(atMax.status).toBe(200);
    expect(over.status).toBe(413);
    expect(ErrorBodySchema.parse(over.json).code).toBe('BODY_TOO_LARGE');
  });

  it('refuses a much larger body with 413 without reading it all', async () => {
    const answer = await postJson(`${stack.url}/validate`, validateBodyOf(MAX_BODY * 20));
    expect(answer.status).toBe(413);
  });

  it.each([
    ['wrong content type', () => request(`${stack.url}/validate`, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: '{"script":"1"}' }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['malformed JSON', () => postJson(`${stack.url}/validate`, '{"script": '), 400, 'INVALID_JSON'],
    ['unknown field', () => postJson(`${stack.url}/t/acme/execute`, { script: '1', variables: [{ name: 'a', value: 1, colour: 'red' }] }), 400, 'UNKNOWN_FIELD'],
    ['wrong type', () => postJson(`${stack.url}/t/acme/execute`, { script: '1', timeoutSeconds: 'soon' }), 400, 'INVALID_REQUEST'],
    ['null variable', () => postJson(`${stack.url}/t/acme/execute`, { script: '1', variables: [{ name: 'a', value: null }] }), 400, 'INVALID_REQUEST'],
    ['unknown route', () => request(`${stack.url}/nowhere`), 404, 'NOT_FOUND'],
    ['wrong method', () => request(`${stack.url}/t/acme/execute`), 405, 'METHOD_NOT_ALLOWED'],
    ['invalid tenant', () => postJson(`${stack.url}/t/Not_A_Tenant/execute`, { script: '1' }), 400, 'INVALID_TENANT'],
    ['a tenant that is no one path segment', () => postJson(`${stack.url}/t/..%2Fother/execute`, { script: '1' }), 404, 'NOT_FOUND'],
    ['the old tenant-less route', () => postJson(`${stack.url}/execute`, { script: '1' }), 404, 'NOT_FOUND'],
  ])('%s', async (_name, send, status, code) => {
    const answer = await send();
    expect(answer.status).toBe(status);
    expect(answer.headers.get('content-type')).toBe('application/json');
    const body = ErrorBodySchema.parse(answer.json);
    expect(body.code).toBe(code);
    expect(body.requestId).toBe(answer.headers.get('x-amzn-requestid'));
  });

  it('names the unknown field by its path and explains a null value', async () => {
    const unknown = await postJson(`${stack.url}/t/acme/execute`, { script: '1', variables: [{ name: 'a', value: 1, colour: 'red' }] });
    expect(unknown.json['message']).toContain('variables[0].colour');
    const nulled = await postJson(`${stack.url}/t/acme/execute`, { script: '1', variables: [{ name: 'a', value: null }] });
    expect(nulled.json['message']).toContain('omit');
  });

  it('refuses a plot size out of bounds with 400 at the field, naming the bound', async () => {
    const answer = await postJson(`${stack.url}/t/acme/execute`, { script: 'plot(1)', plots: { width: 5000 } });
    expect(answer.status).toBe(400);
    expect(ErrorBodySchema.parse(answer.json)).toMatchObject({ code: 'INVALID_REQUEST', issues: [{ path: 'plots.width', message: 'width must be at most 2048 pixels' }] });
  });

  it('says which method a path accepts', async () => {
    expect((await request(`${stack.url}/health`, { method: 'POST' })).headers.get('allow')).toBe('GET');
  });
});

describe('POST /execute with real R', () => {
  it('runs a script with variables and returns its structured result', async () => {
    const script = 'total <- sum(xs) * k\ncat("total is", total, "\\n")\ncat("<<<JUBE_RESULT_START>>>", sprintf(\'{"total": %d}\', total), "<<<JUBE_RESULT_END>>>", sep = "")';
    const answer = await postJson(`${stack.url}/t/acme/execute`, { script, variables: [{ name: 'xs', value: [1, 2, 3] }, { name: 'k', value: 10 }] });
    expect(answer.status).toBe(200);
    const response = ExecuteResponseSchema.parse(answer.json);
    expect(response).toMatchObject({ status: 'ok', error: null, timedOut: false, result: { total: 60 } });
    expect(response.consoleOutput).toContain('total is 60');
  });

  it('returns a plot, a file from out/, the last value and the context bound as .context', async () => {
    const script = 'plot(.context$xs, main = "over HTTP")\nwrite.csv(data.frame(x = .context$xs), "out/xs.csv", row.names = FALSE)\nsum(.context$xs)';
    const answer = await postJson(`${stack.url}/t/acme/execute`, { script, context: { xs: [1, 2, 3] }, plots: { width: 320, height: 240 } });
    expect(answer.status).toBe(200);
    const response = ExecuteResponseSchema.parse(answer.json);
    expect(response).toMatchObject({ status: 'ok', value: { kind: 'json', json: 6 }, plots: [{ mimeType: 'image/png', width: 320, height: 240 }] });
    expect(Buffer.from(response.plots![0]!.data, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(response.files?.map((file) => [file.name, Buffer.from(file.data ?? '', 'base64').toString()])).toEqual([['xs.csv', '"x"\n1\n2\n3\n']]);
  });

  it("reports the script's own failure as a 200 with status error", async () => {
    const answer = await postJson(`${stack.url}/t/acme/execute`, { script: 'stop("no such column")' });
    expect(answer.status).toBe(200);
    expect(ExecuteResponseSchema.parse(answer.json)).toMatchObject({
      status: 'error', timedOut: false, errorType: 'execution', retryable: true, errorDetails: { message: 'no such column', line: 1, column: 1 },
    });
    expect(answer.json['error']).toContain('no such column');
  });

  it('rejects a forbidden script without running it', async () => {
    const answer = await postJson(`${stack.url}/t/acme/execute`, { script: 'system("touch /tmp/x")' });
    expect(answer.status).toBe(200);
    const response = ExecuteResponseSchema.parse(answer.json);
    expect(response).toMatchObject({ status: 'rejected', consoleOutput: '', timedOut: false });
    expect(response.validation?.errors[0]?.code).toBe('CAPABILITY_NOT_AVAILABLE');
  });

  it('times out a script that never ends', async () => {
    const answer = await postJson(`${stack.url}/t/acme/execute`, { script: 'repeat {}', timeoutSeconds: 1 });
    expect(answer.status).toBe(200);
    expect(ExecuteResponseSchema.parse(answer.json)).toMatchObject({ status: 'error', timedOut: true });
    expect(answer.json['error']).toContain('1 s');
  });

  it('clamps timeoutSeconds to the maximum instead of refusing it', async () => {
    const answer = await postJson(`${stack.url}/t/acme/execute`, { script: 'Sys.sleep(60)', timeoutSeconds: 600 });
    expect(answer.status).toBe(200);
    expect(ExecuteResponseSchema.parse(answer.json)).toMatchObject({ status: 'error', timedOut: true });
    expect(answer.json['error']).toContain('6 s');
    // The clamp is said, and the timeout names the maximum as what it is.
    expect(answer.json['notes']).toContain("timeoutSeconds 600 is above this deployment's maximum; 6 s was used (GET /health?detail=full limits.scriptTimeoutSecondsMax)");
    expect(answer.json['error']).toContain("6 s is this deployment's maximum timeoutSeconds");
    // Ended at the clamped limit, not by the script's own 60 s.
    expect(answer.ms).toBeLessThan(60_000);
  });

  it('holds a run to the request\'s output budget and says what to raise', async () => {
    const answer = await postJson(`${stack.url}/t/acme/execute`, {
      script: 'for (i in 1:240) warning("same")\nprint(data.frame(id = 1:60000))\ninvisible(NULL)',
      outputBudget: { consoleBytes: 2048 },
    });
    const response = ExecuteResponseSchema.parse(answer.json);
    expect(response.warnings).toEqual(['same [240 times]']);
    expect(Buffer.byteLength(response.consoleOutput)).toBeLessThan(2048 + 100);
    expect(response.notes).toContainEqual(expect.stringMatching(/outputBudget\.consoleBytes is 2048; raise it/));
  });
});
