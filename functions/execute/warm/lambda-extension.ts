/**
 * The warm start's internal Lambda extension: registered by the handler process itself, it starts
 * the next warm runner after the response has left, inside the invocation's billed time but off
 * the caller's path. AWS documents (https://docs.aws.amazon.com/lambda/latest/dg/runtimes-extensions-api.html):
 * an internal extension runs in the runtime process and registers through the Extensions API
 * (`POST /2020-01-01/extension/register`) during init, before the runtime's first Next; the Init
 * phase ends once the runtime and every registered extension have called Next
 * (`GET /2020-01-01/extension/event/next`); each invocation's INVOKE event goes to the runtime and to
 * every extension, and the Invoke phase (what the function's timeout bounds) ends, and the
 * environment may be frozen, only once the runtime and every extension have asked for the next
 * event. Lambda returns the function's response as soon as the runtime posts it, without waiting for
 * extensions (https://aws.amazon.com/blogs/compute/performance-and-functionality-improvements-for-aws-lambda-extensions/);
 * the time extensions take after it is billed (https://docs.aws.amazon.com/lambda/latest/dg/lambda-extensions.html).
 * Internal extensions may register for INVOKE only (SHUTDOWN is for external ones).
 */
import { request } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';

const EXTENSION_API = '/2020-01-01/extension';

/**
 * What the refill leaves of the invocation's deadline (the INVOKE event's deadlineMs): the Invoke
 * phase lasts until this extension's Next, and the function's timeout covers it, so a refill that
 * ran on would end the invocation in a timeout after the caller was answered and reset the
 * environment. A runner still starting when the margin is reached goes on after the thaw.
 */
export const REFILL_DEADLINE_MARGIN_MS = 1_000;
/** The name this extension registers under (Lambda-Extension-Name). */
export const WARM_EXTENSION_NAME = 'jube-r-warm-start';

export interface WarmExtensionHooks {
  /** Settles when the first runner is ready (or could not start): the extension's init is done. */
  readonly init: Promise<unknown>;
  /** After an invocation was answered: start the next runner and wait until it is ready. */
  readonly afterInvoke: () => Promise<unknown>;
  readonly log?: (message: string, detail?: Record<string, unknown>) => void;
}

export interface WarmExtension {
  /** True once registered; false where the Extensions API refused (then nobody holds the freeze). */
  readonly registered: Promise<boolean>;
  /** The handler answered one invocation (its response is on its way to the runtime client). */
  answered(): void;
}

function call(runtimeApi: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const [host, port] = runtimeApi.split(':');
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      { host, port: Number(port ?? 80), method, path, headers: { ...headers, ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': payload.length } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export function startWarmExtension(runtimeApi: string, hooks: WarmExtensionHooks): WarmExtension {
  let answers = 0;
  let waiting: { until: number; resolve: () => void }[] = [];
  const answeredAtLeast = (count: number) =>
    answers >= count ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ until: count, resolve }));

  const registered = call(runtimeApi, 'POST', `${EXTENSION_API}/register`, { 'Lambda-Extension-Name': WARM_EXTENSION_NAME }, { events: ['INVOKE'] }).then(
    (res) => {
      const id = res.headers['lambda-extension-identifier'];
      if (res.status !== 200 || typeof id !== 'string') {
        hooks.log?.('the warm start extension was not registered', { status: res.status });
        return undefined;
      }
      return id;
    },
    (error: unknown) => {
      hooks.log?.('the warm start extension was not registered', { error: String(error) });
      return undefined;
    },
  );

  void registered.then(async (id) => {
    if (id === undefined) return;
    await hooks.init.catch(() => undefined);
    for (let invokes = 1; ; invokes += 1) {
      let event: { eventType?: string; deadlineMs?: number };
      try {
        const res = await call(runtimeApi, 'GET', `${EXTENSION_API}/event/next`, { 'Lambda-Extension-Identifier': id });
        event = JSON.parse(res.body) as { eventType?: string; deadlineMs?: number };
      } catch (error) {
        hooks.log?.('the warm start extension lost the Extensions API', { error: String(error) });
        return;
      }
      if (event.eventType !== 'INVOKE') return;
      // The handler's answer goes to the runtime client in the same turn it resolves; the next
      // turn starts R, so the response's POST is already written when R competes for the CPU.
      await answeredAtLeast(invokes);
      await nextTurn();
      const left = typeof event.deadlineMs === 'number' ? event.deadlineMs - Date.now() - REFILL_DEADLINE_MARGIN_MS : Number.POSITIVE_INFINITY;
      if (left <= 0) {
        hooks.log?.('the warm start skipped its refill: the invocation deadline is near', { deadlineMs: event.deadlineMs });
        continue;
      }
      let timer: NodeJS.Timeout | undefined;
      const cut = new Promise<'deadline'>((resolve) => {
        if (Number.isFinite(left)) timer = setTimeout(() => resolve('deadline'), left);
      });
      const done = await Promise.race([hooks.afterInvoke().then(() => 'ready' as const, () => 'ready' as const), cut]);
      clearTimeout(timer);
      if (done === 'deadline') hooks.log?.('the warm start cut its refill short at the invocation deadline', { deadlineMs: event.deadlineMs });
    }
  });

  return {
    registered: registered.then((id) => id !== undefined),
    answered() {
      answers += 1;
      const due = waiting.filter((w) => w.until <= answers);
      waiting = waiting.filter((w) => w.until > answers);
      for (const w of due) w.resolve();
    },
  };
}
