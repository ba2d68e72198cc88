/**
 * The Runtime API emulator keeps the 2018-06-01 contract the runtime interface client relies on.
 * Driven over real HTTP, as a runtime would.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startRuntimeApiEmulator, type RuntimeApiEmulator } from '../../functions/tools/local/runtime-api-emulator.ts';

let emulator: RuntimeApiEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

const start = async () => {
  emulator = await startRuntimeApiEmulator({ listen: { host: '127.0.0.1', port: 0 } });
  return { emulator, base: `http://${emulator.address}/2018-06-01/runtime` };
};

describe('runtime API emulator', () => {
  it('delivers the event with the Lambda-Runtime headers and settles on /response', async () => {
    // Prepare
    const { emulator, base } = await start();
    const before = Date.now();

    // Act
    const outcome = emulator.invoke({ script: 'x' }, { requestId: 'req-1', timeoutMs: 10_000 });
    const next = await fetch(`${base}/invocation/next`);
    const event: unknown = await next.json();
    const posted = await fetch(`${base}/invocation/req-1/response`, { method: 'POST', body: JSON.stringify({ status: 'ok' }) });

    // Assess
    expect(event).toEqual({ script: 'x' });
    expect(next.headers.get('lambda-runtime-aws-request-id')).toBe('req-1');
    expect(Number(next.headers.get('lambda-runtime-deadline-ms'))).toBeGreaterThanOrEqual(before + 10_000);
    expect(next.headers.get('lambda-runtime-invoked-function-arn')).toMatch(/^arn:aws:lambda:/);
    expect(next.headers.get('lambda-runtime-trace-id')).toMatch(/^Root=1-/);
    expect(posted.status).toBe(202);
    expect(await outcome).toEqual({ ok: true, payload: { status: 'ok' } });
  });

  it('long-polls /next until an invocation arrives', async () => {
    const { emulator, base } = await start();

    const next = fetch(`${base}/invocation/next`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const outcome = emulator.invoke(42, { requestId: 'late', timeoutMs: 10_000 });
    const delivered = await next;
    await fetch(`${base}/invocation/late/response`, { method: 'POST', body: '"done"' });

    expect(delivered.headers.get('lambda-runtime-aws-request-id')).toBe('late');
    expect(await outcome).toEqual({ ok: true, payload: 'done' });
  });

  it("gives a second poller no event while one is running (a script's own GET /next), only after it settles", async () => {
    const { emulator, base } = await start();
    const first = emulator.invoke('mine', { requestId: 'a', timeoutMs: 10_000 });
    const second = emulator.invoke('another caller', { requestId: 'b', timeoutMs: 10_000 });
    await fetch(`${base}/invocation/next`);

    // Act: a second GET /next while 'a' runs.
    let stolen = false;
    const intruder = fetch(`${base}/invocation/next`).then(async (r) => {
      stolen = true;
      return r.headers.get('lambda-runtime-aws-request-id');
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const stolenWhileRunning = stolen;
    await fetch(`${base}/invocation/a/response`, { method: 'POST', body: '"a done"' });

    // Assess: nothing while 'a' ran; 'b' goes out once 'a' is settled (here to the waiting poller).
    expect(stolenWhileRunning).toBe(false);
    expect(await intruder).toBe('b');
    await fetch(`${base}/invocation/b/response`, { method: 'POST', body: '"b done"' });
    expect(await first).toEqual({ ok: true, payload: 'a done' });
    expect(await second).toEqual({ ok: true, payload: 'b done' });
  });

  it('reports a posted function error with its type and message', async () => {
    const { emulator, base } = await start();

    const outcome = emulator.invoke({}, { requestId: 'req-e', timeoutMs: 10_000 });
    await fetch(`${base}/invocation/next`);
    await fetch(`${base}/invocation/req-e/error`, {
      method: 'POST',
      headers: { 'Lambda-Runtime-Function-Error-Type': 'Runtime.HandlerError' },
      body: JSON.stringify({ errorType: 'TypeError', errorMessage: 'bad', stackTrace: [] }),
    });

    expect(await outcome).toEqual({ ok: false, errorType: 'TypeError', errorMessage: 'bad' });
  });

  it('fails queued and later invocations with the init error', async () => {
    const { emulator, base } = await start();

    const queued = emulator.invoke({}, { requestId: 'q', timeoutMs: 10_000 });
    await fetch(`${base}/init/error`, { method: 'POST', body: JSON.stringify({ errorType: 'Runtime.ImportModuleError', errorMessage: 'no handler' }) });
    const later = emulator.invoke({}, { requestId: 'l', timeoutMs: 10_000 });

    const expected = { ok: false, errorType: 'Runtime.ImportModuleError', errorMessage: 'no handler' };
    expect(await queued).toEqual(expected);
    expect(await later).toEqual(expected);
  });

  it('times an invocation out from delivery and refuses a late answer', async () => {
    const { emulator, base } = await start();

    const outcome = emulator.invoke({}, { requestId: 'slow', timeoutMs: 200 });
    await fetch(`${base}/invocation/next`);
    const settled = await outcome;
    const late = await fetch(`${base}/invocation/slow/response`, { method: 'POST', body: '{}' });

    expect(settled).toMatchObject({ ok: false, errorType: 'Sandbox.Timedout' });
    expect(late.status).toBe(400);
  });
});

describe('runtime API emulator, Extensions API', () => {
  const extensionBase = () => `http://${emulator!.address}/2020-01-01/extension`;
  const register = (name: string) =>
    fetch(`${extensionBase()}/register`, { method: 'POST', headers: { 'Lambda-Extension-Name': name }, body: JSON.stringify({ events: ['INVOKE'] }) });

  it('registers during init only, and sends each extension an INVOKE event per invocation', async () => {
    const { emulator, base } = await start();
    const registered = await register('warm');
    const id = registered.headers.get('lambda-extension-identifier')!;
    expect(registered.status).toBe(200);
    const extNext = fetch(`${extensionBase()}/event/next`, { headers: { 'Lambda-Extension-Identifier': id } });
    const runtimeNext = fetch(`${base}/invocation/next`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await register('late')).status).toBe(403);

    const outcome = emulator.invoke({ n: 1 }, { requestId: 'r1', timeoutMs: 10_000 });
    await runtimeNext;
    const event = (await (await extNext).json()) as { eventType: string; requestId: string };
    expect(event).toMatchObject({ eventType: 'INVOKE', requestId: 'r1' });
    await fetch(`${base}/invocation/r1/response`, { method: 'POST', body: '"one"' });
    expect(await outcome).toEqual({ ok: true, payload: 'one' });
    expect(emulator.extensions()).toEqual(['warm']);
  });

  it('answers the caller at the response, but delivers the next invocation only after every extension asked for the next event', async () => {
    const { emulator, base } = await start();
    const id = (await register('warm')).headers.get('lambda-extension-identifier')!;
    const extNext = () => fetch(`${extensionBase()}/event/next`, { headers: { 'Lambda-Extension-Identifier': id } });
    let ext = extNext();
    const first = emulator.invoke(1, { requestId: 'a', timeoutMs: 10_000 });
    await fetch(`${base}/invocation/next`);
    await ext;
    await fetch(`${base}/invocation/a/response`, { method: 'POST', body: '"a"' });
    expect(await first).toEqual({ ok: true, payload: 'a' });

    const second = emulator.invoke(2, { requestId: 'b', timeoutMs: 10_000 });
    let delivered = false;
    const runtimeNext = fetch(`${base}/invocation/next`).then((r) => ((delivered = true), r));
    await new Promise((resolve) => setTimeout(resolve, 150));
    // The extension is still at its post-response work: the environment is not frozen, no new event.
    expect(delivered).toBe(false);
    ext = extNext();
    await runtimeNext;
    const phase = emulator.invokePhase('a')!;
    expect(phase.respondedAt).toBeLessThanOrEqual(phase.extensionsDoneAt!);
    expect(phase.extensionsDoneAt! - phase.respondedAt!).toBeGreaterThanOrEqual(100);
    await fetch(`${base}/invocation/b/response`, { method: 'POST', body: '"b"' });
    expect(await second).toEqual({ ok: true, payload: 'b' });
    void ext.catch(() => undefined);
  });

  it('a runtime that exits mid-phase (a retired environment) takes its extensions along: the next init registers again and gets the queued event', async () => {
    const { emulator, base } = await start();
    const id = (await register('warm')).headers.get('lambda-extension-identifier')!;
    const ext = fetch(`${extensionBase()}/event/next`, { headers: { 'Lambda-Extension-Identifier': id } });
    const first = emulator.invoke(1, { requestId: 'a', timeoutMs: 10_000 });
    await fetch(`${base}/invocation/next`);
    await ext;
    // The runtime answers and exits before its extension asks for the next event.
    await fetch(`${base}/invocation/a/response`, { method: 'POST', body: '"a"' });
    expect(await first).toEqual({ ok: true, payload: 'a' });
    const second = emulator.invoke(2, { requestId: 'b', timeoutMs: 10_000 });
    emulator.failRunning('Runtime.ExitError', 'the execute container exited');
    expect(emulator.extensions()).toEqual([]);

    // The next runtime's init: its extension registers (a new Init phase), then both ask for events.
    const again = await register('warm');
    expect(again.status).toBe(200);
    const againNext = fetch(`${extensionBase()}/event/next`, { headers: { 'Lambda-Extension-Identifier': again.headers.get('lambda-extension-identifier')! } });
    const delivered = await fetch(`${base}/invocation/next`);
    expect(delivered.headers.get('lambda-runtime-aws-request-id')).toBe('b');
    await againNext;
    await fetch(`${base}/invocation/b/response`, { method: 'POST', body: '"b"' });
    expect(await second).toEqual({ ok: true, payload: 'b' });
  });

  it("drives the warm start's extension: the refill runs after the response and holds the next event", async () => {
    const { startWarmExtension } = await import('../../functions/execute/warm/lambda-extension.ts');
    const { emulator, base } = await start();
    const refills: number[] = [];
    const extension = startWarmExtension(emulator.address, {
      init: Promise.resolve(),
      afterInvoke: async () => {
        refills.push(Date.now());
        await new Promise((resolve) => setTimeout(resolve, 200));
      },
    });
    expect(await extension.registered).toBe(true);
    const outcome = emulator.invoke(1, { requestId: 'w1', timeoutMs: 10_000 });
    await fetch(`${base}/invocation/next`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(refills).toEqual([]);
    extension.answered();
    await fetch(`${base}/invocation/w1/response`, { method: 'POST', body: '"w"' });
    expect(await outcome).toEqual({ ok: true, payload: 'w' });
    const second = emulator.invoke(2, { requestId: 'w2', timeoutMs: 10_000 });
    await fetch(`${base}/invocation/next`);
    const phase = emulator.invokePhase('w1')!;
    expect(refills).toHaveLength(1);
    expect(phase.extensionsDoneAt! - phase.respondedAt!).toBeGreaterThanOrEqual(150);
    extension.answered();
    await fetch(`${base}/invocation/w2/response`, { method: 'POST', body: '"w2"' });
    await second;
  });
});
