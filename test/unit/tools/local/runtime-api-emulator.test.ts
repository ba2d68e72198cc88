/**
 * The Runtime API emulator keeps the 2018-06-01 contract the runtime interface client relies on,
 * and the state machine of Lambda's (functions/tools/local/runtime-api-emulator.ts cites the
 * Runtime Interface Emulator's lines for each rule): registration and `init/error` only during
 * Init, one outstanding Next per client, and a runtime or extension that breaks the protocol ends
 * its environment (the running call fails, the queued ones come back undelivered for the next
 * environment, nothing more is served). Driven over real HTTP, as a runtime would.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startRuntimeApiEmulator, type RuntimeApiEmulator } from '../../../../functions/tools/local/runtime-api-emulator.ts';

let emulator: RuntimeApiEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

const start = async () => {
  emulator = await startRuntimeApiEmulator({ listen: { host: '127.0.0.1', port: 0 } });
  return { emulator, base: `http://${emulator.address}/2018-06-01/runtime`, extensionBase: `http://${emulator.address}/2020-01-01/extension` };
};
const register = (extensionBase: string, name: string) =>
  fetch(`${extensionBase}/register`, { method: 'POST', headers: { 'Lambda-Extension-Name': name }, body: JSON.stringify({ events: ['INVOKE'] }) });
const extensionNext = (extensionBase: string, id: string) => fetch(`${extensionBase}/event/next`, { headers: { 'Lambda-Extension-Identifier': id } });
/** Resolves whether `promise` settled within `ms` (a poll that must still be waiting). */
const settledWithin = (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise.then(() => true, () => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);
const ENDED = { ok: false, errorType: 'Runtime.ExitError' };

describe('runtime API emulator', () => {
  it('delivers the event with the Lambda-Runtime headers and settles on /response', async () => {
    // Prepare
    const { emulator, base } = await start();
    const before = Date.now();

    // Act
    const outcome = emulator.invoke({ script: 'x' }, { requestId: 'req-1', timeoutMs: 10_000, tenantId: 't1' });
    const next = await fetch(`${base}/invocation/next`);
    const event: unknown = await next.json();
    const posted = await fetch(`${base}/invocation/req-1/response`, { method: 'POST', body: JSON.stringify({ status: 'ok' }) });

    // Assess
    expect(event).toEqual({ script: 'x' });
    expect(next.headers.get('lambda-runtime-aws-request-id')).toBe('req-1');
    expect(next.headers.get('lambda-runtime-aws-tenant-id')).toBe('t1');
    expect(Number(next.headers.get('lambda-runtime-deadline-ms'))).toBeGreaterThanOrEqual(before + 10_000);
    expect(next.headers.get('lambda-runtime-invoked-function-arn')).toMatch(/^arn:aws:lambda:/);
    expect(next.headers.get('lambda-runtime-trace-id')).toMatch(/^Root=1-/);
    expect(posted.status).toBe(202);
    expect(await outcome).toEqual({ ok: true, payload: { status: 'ok' } });
  });

  it('long-polls /next until an invocation arrives, and serves the next one after the answer', async () => {
    const { emulator, base } = await start();

    const next = fetch(`${base}/invocation/next`);
    expect(await settledWithin(next, 100)).toBe(false);
    const outcome = emulator.invoke(42, { requestId: 'late', timeoutMs: 10_000 });
    const delivered = await next;
    await fetch(`${base}/invocation/late/response`, { method: 'POST', body: '"done"' });
    const again = emulator.invoke(43, { requestId: 'again', timeoutMs: 10_000 });
    const second = await fetch(`${base}/invocation/next`);
    await fetch(`${base}/invocation/again/response`, { method: 'POST', body: '"again"' });

    expect(delivered.headers.get('lambda-runtime-aws-request-id')).toBe('late');
    expect(await outcome).toEqual({ ok: true, payload: 'done' });
    expect(second.headers.get('lambda-runtime-aws-request-id')).toBe('again');
    expect(await again).toEqual({ ok: true, payload: 'again' });
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

  it('refuses an answer for a request id that is not running, and serves on', async () => {
    const { emulator, base } = await start();
    const outcome = emulator.invoke({}, { requestId: 'real', timeoutMs: 10_000 });
    await fetch(`${base}/invocation/next`);

    const guessed = await fetch(`${base}/invocation/guessed/response`, { method: 'POST', body: '"forged"' });
    await fetch(`${base}/invocation/real/response`, { method: 'POST', body: '"real"' });

    expect(guessed.status).toBe(400);
    expect(await outcome).toEqual({ ok: true, payload: 'real' });
  });

  it('times an invocation out from delivery, ends the environment, and refuses a late answer; a queued call comes back undelivered', async () => {
    const { emulator, base } = await start();

    const outcome = emulator.invoke({}, { requestId: 'slow', timeoutMs: 200 });
    await fetch(`${base}/invocation/next`);
    const queued = emulator.invoke({}, { requestId: 'queued', timeoutMs: 10_000 });
    const settled = await outcome;
    const late = await fetch(`${base}/invocation/slow/response`, { method: 'POST', body: '{}' });

    expect(settled).toMatchObject({ ok: false, errorType: 'Sandbox.Timedout' });
    expect(await emulator.ended).toMatchObject({ errorType: 'Sandbox.Timedout', initFailed: false });
    expect(await queued).toMatchObject({ ok: false, undelivered: { errorType: 'Sandbox.Timedout' } });
    expect(late.status).toBe(403);
  });
});

describe('runtime API emulator: init/error only during Init', () => {
  it('an init error during Init fails the calls waiting for that Init and ends the environment; nothing later is answered with it', async () => {
    const { emulator, base } = await start();
    const waiting = emulator.invoke({}, { requestId: 'w', timeoutMs: 10_000 });

    const reported = await fetch(`${base}/init/error`, { method: 'POST', body: JSON.stringify({ errorType: 'Runtime.ImportModuleError', errorMessage: 'no handler' }) });
    const later = await emulator.invoke({}, { requestId: 'l', timeoutMs: 10_000 });

    expect(reported.status).toBe(202);
    expect(await waiting).toEqual({ ok: false, errorType: 'Runtime.ImportModuleError', errorMessage: 'no handler' });
    expect(await emulator.ended).toEqual({ errorType: 'Runtime.ImportModuleError', errorMessage: 'no handler', initFailed: true });
    // Not remembered as this key's answer: the call is handed back for a fresh environment.
    expect(later).toMatchObject({ ok: false, undelivered: { initFailed: true } });
  });

  it('an init/error after Init (mid-invocation) is refused 403 and ends the environment: the running call fails, the queued one is undelivered', async () => {
    const { emulator, base } = await start();
    const running = emulator.invoke({}, { requestId: 'r', timeoutMs: 10_000 });
    await fetch(`${base}/invocation/next`);
    const queued = emulator.invoke({}, { requestId: 'q', timeoutMs: 10_000 });

    const late = await fetch(`${base}/init/error`, { method: 'POST', body: JSON.stringify({ errorType: 'Runtime.Forged', errorMessage: 'every later call fails' }) });

    expect(late.status).toBe(403);
    expect(await late.json()).toMatchObject({ errorType: 'InvalidStateTransition' });
    expect(await running).toMatchObject(ENDED);
    expect(await queued).toMatchObject({ ok: false, undelivered: { errorType: 'Runtime.ExitError', initFailed: false } });
    expect((await emulator.ended).errorMessage).toContain('init/error after Init');
  });
});

describe('runtime API emulator: one outstanding Next for the runtime', () => {
  it("a Next while an invocation runs (a script's own GET /next) is refused and ends the environment: no event is read", async () => {
    const { emulator, base } = await start();
    const mine = emulator.invoke('mine', { requestId: 'a', timeoutMs: 10_000 });
    const another = emulator.invoke('another caller', { requestId: 'b', timeoutMs: 10_000 });
    await fetch(`${base}/invocation/next`);

    const intruder = await fetch(`${base}/invocation/next`);
    const answer = await fetch(`${base}/invocation/a/response`, { method: 'POST', body: '"a done"' });

    expect(intruder.status).toBe(403);
    expect(intruder.headers.get('lambda-runtime-aws-request-id')).toBeNull();
    expect(await mine).toMatchObject(ENDED);
    expect(await another).toMatchObject({ ok: false, undelivered: { initFailed: false } });
    expect(answer.status).toBe(403);
  });

  it('a second Next while one is waiting is refused and ends the environment', async () => {
    const { emulator, base } = await start();
    const first = fetch(`${base}/invocation/next`);
    expect(await settledWithin(first, 50)).toBe(false);

    const second = await fetch(`${base}/invocation/next`);

    expect(second.status).toBe(403);
    expect((await emulator.ended).errorMessage).toContain('second runtime Next');
    await expect(first).rejects.toThrow();
    expect(await emulator.invoke({}, { requestId: 'x', timeoutMs: 10_000 })).toMatchObject({ ok: false, undelivered: {} });
  });

  it("a runtime whose Next closes unanswered (its process died) ends the environment", async () => {
    const { emulator, base } = await start();
    const abort = new AbortController();
    const next = fetch(`${base}/invocation/next`, { signal: abort.signal }).catch(() => undefined);
    expect(await settledWithin(next, 50)).toBe(false);

    abort.abort();

    expect(await emulator.ended).toMatchObject({ errorType: 'Runtime.ExitError', initFailed: false });
  });

  it('ended from outside (the container exited): the running call fails, the queued one comes back undelivered', async () => {
    const { emulator, base } = await start();
    const running = emulator.invoke(1, { requestId: 'a', timeoutMs: 10_000 });
    await fetch(`${base}/invocation/next`);
    const queued = emulator.invoke(2, { requestId: 'b', timeoutMs: 10_000 });

    emulator.end('Runtime.ExitError', 'the execute container exited');

    expect(await running).toEqual({ ok: false, errorType: 'Runtime.ExitError', errorMessage: 'the execute container exited' });
    expect(await queued).toMatchObject({ ok: false, undelivered: { errorMessage: 'the execute container exited' } });
    expect((await fetch(`${base}/invocation/next`)).status).toBe(403);
  });
});

describe('runtime API emulator, Extensions API', () => {
  it('registers during Init only: after the runtime asked for its first event a registration is refused and ends the environment', async () => {
    const { emulator, base, extensionBase } = await start();
    const registered = await register(extensionBase, 'warm');
    const id = registered.headers.get('lambda-extension-identifier')!;
    expect(registered.status).toBe(200);
    const extNext = extensionNext(extensionBase, id).catch((error: unknown) => error);
    const runtimeNext = fetch(`${base}/invocation/next`);
    expect(await settledWithin(runtimeNext, 50)).toBe(false);

    const late = await register(extensionBase, 'late');

    expect(late.status).toBe(403);
    expect(await late.json()).toMatchObject({ errorType: 'Extension.RegistrationClosed', errorMessage: 'Extension registration closed already' });
    expect((await emulator.ended).errorMessage).toContain('registration closed');
    await expect(runtimeNext).rejects.toThrow();
    expect(await extNext).toBeInstanceOf(Error);
  });

  it('refuses a name registered twice, even during Init, and ends the environment', async () => {
    const { emulator, extensionBase } = await start();
    expect((await register(extensionBase, 'warm')).status).toBe(200);

    const again = await register(extensionBase, 'warm');

    expect(again.status).toBe(403);
    expect(await again.json()).toMatchObject({ errorMessage: 'Extension with this name already registered' });
    expect(await emulator.ended).toMatchObject({ initFailed: true });
  });

  it('sends each extension an INVOKE event per invocation', async () => {
    const { emulator, base, extensionBase } = await start();
    const id = (await register(extensionBase, 'warm')).headers.get('lambda-extension-identifier')!;
    const extNext = extensionNext(extensionBase, id);
    const runtimeNext = fetch(`${base}/invocation/next`);

    const outcome = emulator.invoke({ n: 1 }, { requestId: 'r1', timeoutMs: 10_000 });
    await runtimeNext;
    const event = (await (await extNext).json()) as { eventType: string; requestId: string };
    await fetch(`${base}/invocation/r1/response`, { method: 'POST', body: '"one"' });

    expect(event).toMatchObject({ eventType: 'INVOKE', requestId: 'r1' });
    expect(await outcome).toEqual({ ok: true, payload: 'one' });
    expect(emulator.extensions()).toEqual(['warm']);
  });

  it('answers the caller at the response, but delivers the next invocation only after every extension asked for the next event', async () => {
    const { emulator, base, extensionBase } = await start();
    const id = (await register(extensionBase, 'warm')).headers.get('lambda-extension-identifier')!;
    let ext = extensionNext(extensionBase, id);
    const first = emulator.invoke(1, { requestId: 'a', timeoutMs: 10_000 });
    await fetch(`${base}/invocation/next`);
    await ext;
    await fetch(`${base}/invocation/a/response`, { method: 'POST', body: '"a"' });
    expect(await first).toEqual({ ok: true, payload: 'a' });

    const second = emulator.invoke(2, { requestId: 'b', timeoutMs: 10_000 });
    const runtimeNext = fetch(`${base}/invocation/next`);
    // The extension is still at its post-response work: the environment is not frozen, no new event.
    expect(await settledWithin(runtimeNext, 150)).toBe(false);
    ext = extensionNext(extensionBase, id);
    await runtimeNext;
    const phase = emulator.invokePhase('a')!;
    expect(phase.respondedAt).toBeLessThanOrEqual(phase.extensionsDoneAt!);
    expect(phase.extensionsDoneAt! - phase.respondedAt!).toBeGreaterThanOrEqual(100);
    await fetch(`${base}/invocation/b/response`, { method: 'POST', body: '"b"' });
    expect(await second).toEqual({ ok: true, payload: 'b' });
    void ext.catch(() => undefined);
  });

  it('a second Next of an extension while its first is waiting is refused and ends the environment', async () => {
    const { emulator, base, extensionBase } = await start();
    const id = (await register(extensionBase, 'warm')).headers.get('lambda-extension-identifier')!;
    const waiting = extensionNext(extensionBase, id);
    void fetch(`${base}/invocation/next`).catch(() => undefined);
    expect(await settledWithin(waiting, 50)).toBe(false);

    const second = await extensionNext(extensionBase, id);

    expect(second.status).toBe(403);
    expect((await emulator.ended).errorMessage).toContain('second Next of extension warm');
    await expect(waiting).rejects.toThrow();
  });

  it('a Next with an identifier never registered is refused and ends the environment', async () => {
    const { emulator, extensionBase } = await start();

    const forged = await extensionNext(extensionBase, '00000000-0000-0000-0000-000000000000');

    expect(forged.status).toBe(403);
    expect(await forged.json()).toMatchObject({ errorType: 'Extension.UnknownExtensionIdentifier' });
    expect((await emulator.ended).errorMessage).toContain('Unknown extension identifier');
  });

  it("an extension's init/error during its Init fails that Init; after its first Next it is refused; either ends the environment", async () => {
    const during = await start();
    const id = (await register(during.extensionBase, 'warm')).headers.get('lambda-extension-identifier')!;
    const waiting = during.emulator.invoke({}, { requestId: 'w', timeoutMs: 10_000 });
    const reported = await fetch(`${during.extensionBase}/init/error`, { method: 'POST', headers: { 'Lambda-Extension-Identifier': id, 'Lambda-Extension-Function-Error-Type': 'Extension.Failed' } });
    expect(reported.status).toBe(202);
    expect(await waiting).toMatchObject({ ok: false, errorType: 'Extension.InitError' });
    expect(await during.emulator.ended).toMatchObject({ errorType: 'Extension.InitError', initFailed: true });
    await during.emulator.close();

    const after = await start();
    const id2 = (await register(after.extensionBase, 'warm')).headers.get('lambda-extension-identifier')!;
    const polled = extensionNext(after.extensionBase, id2);
    void fetch(`${after.base}/invocation/next`).catch(() => undefined);
    const running = after.emulator.invoke({}, { requestId: 'r', timeoutMs: 10_000 });
    await polled;
    const late = await fetch(`${after.extensionBase}/init/error`, { method: 'POST', headers: { 'Lambda-Extension-Identifier': id2, 'Lambda-Extension-Function-Error-Type': 'Extension.Failed' } });
    expect(late.status).toBe(403);
    expect(await running).toMatchObject(ENDED);
  });

  it("an extension's exit/error ends the environment (Lambda resets it)", async () => {
    const { emulator, base, extensionBase } = await start();
    const id = (await register(extensionBase, 'warm')).headers.get('lambda-extension-identifier')!;
    const polled = extensionNext(extensionBase, id);
    void fetch(`${base}/invocation/next`).catch(() => undefined);
    const running = emulator.invoke({}, { requestId: 'r', timeoutMs: 10_000 });
    await polled;

    const exited = await fetch(`${extensionBase}/exit/error`, { method: 'POST', headers: { 'Lambda-Extension-Identifier': id, 'Lambda-Extension-Function-Error-Type': 'Extension.Failed' } });

    expect(exited.status).toBe(202);
    expect(await running).toMatchObject({ ok: false, errorType: 'Extension.ExitError' });
  });

  it("drives the warm start's extension: the refill runs after the response and holds the next event", async () => {
    const { startWarmExtension } = await import('../../../../functions/execute/warm/lambda-extension.ts');
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
    expect(await second).toEqual({ ok: true, payload: 'w2' });
  });

  it("never holds the Invoke phase past the event's deadline: a refill still running at the margin is left to go on", async () => {
    const { startWarmExtension, REFILL_DEADLINE_MARGIN_MS } = await import('../../../../functions/execute/warm/lambda-extension.ts');
    const { emulator, base } = await start();
    const logged: string[] = [];
    const extension = startWarmExtension(emulator.address, {
      init: Promise.resolve(),
      // A refill that would outlast the invocation's timeout.
      afterInvoke: () => new Promise((resolve) => setTimeout(resolve, 60_000).unref()),
      log: (message) => logged.push(message),
    });
    expect(await extension.registered).toBe(true);
    const timeoutMs = REFILL_DEADLINE_MARGIN_MS + 1_500;
    const outcome = emulator.invoke(1, { requestId: 'd1', timeoutMs });
    await fetch(`${base}/invocation/next`);
    extension.answered();
    await fetch(`${base}/invocation/d1/response`, { method: 'POST', body: '"d"' });
    expect(await outcome).toEqual({ ok: true, payload: 'd' });
    // The next event is asked for before the deadline: the invocation does not time out afterwards.
    const second = emulator.invoke(2, { requestId: 'd2', timeoutMs: 10_000 });
    await fetch(`${base}/invocation/next`);
    const phase = emulator.invokePhase('d1')!;
    expect(phase.extensionsDoneAt).toBeDefined();
    expect(logged).toContain('the warm start cut its refill short at the invocation deadline');
    extension.answered();
    await fetch(`${base}/invocation/d2/response`, { method: 'POST', body: '"d2"' });
    expect(await second).toMatchObject({ ok: true });
  });
});
