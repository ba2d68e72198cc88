/**
 * A small Lambda Runtime API (2018-06-01) emulator: what a container image's runtime interface
 * client talks to through AWS_LAMBDA_RUNTIME_API. One emulator is one execution environment:
 * invocations are delivered one at a time, in order, to `GET .../invocation/next` (a long poll),
 * and settle when the runtime posts `.../response` or `.../error`, when the function's timeout
 * passes, or when the runtime reports `/init/error`.
 *
 * It also emulates the parts of the Extensions API (2020-01-01) the execute function's internal
 * extension uses (functions/execute/warm/lambda-extension.ts), as AWS documents them
 * (https://docs.aws.amazon.com/lambda/latest/dg/runtimes-extensions-api.html): `register` during
 * init (refused once the runtime has asked for its first event, unless the same name registers
 * again; a runtime that exits takes its internal extensions with it, and the next runtime's init
 * registers afresh), `event/next` as a long poll that receives an INVOKE event
 * for every invocation the runtime receives, and the rule that makes post-response work possible:
 * an invocation's response settles the caller at once, but the next invocation is delivered only
 * once the runtime and every extension have asked for the next event (the environment would be
 * frozen then). Each invocation's phases are recorded (invokePhase) so tests can measure them.
 *
 * Used by the image tests and by the local stack's container runtime (JUBE_R_EXECUTE_RUNTIME=container).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InvokeAnswer } from './runtime.ts';
import { MAX_INVOKE_PAYLOAD_BYTES } from './lambda-endpoint.ts';

const API = '/2018-06-01/runtime';
const EXTENSION_API = '/2020-01-01/extension';
/** Lambda's synchronous payload limit holds for the response as for the request. */
export const MAX_RESPONSE_BYTES = MAX_INVOKE_PAYLOAD_BYTES;

export type EmulatorListen = { readonly path: string } | { readonly host: string; readonly port: number };

export interface EmulatorOptions {
  readonly listen: EmulatorListen;
  readonly functionArn?: string;
}

export interface EmulatedInvocation {
  readonly requestId: string;
  /** The function's timeout; the clock starts when the runtime receives the event, as in Lambda. */
  readonly timeoutMs: number;
  readonly tenantId?: string | undefined;
}

export interface RuntimeApiEmulator {
  /** `host:port` for TCP, the socket path for a unix socket. */
  readonly address: string;
  invoke(payload: unknown, invocation: EmulatedInvocation): Promise<InvokeAnswer>;
  /** The runtime's /init/error report, if any. */
  readonly initError: () => InvokeAnswer | undefined;
  /** Settles every queued or running invocation with this outcome (e.g. the runtime died). */
  failAll(errorType: string, errorMessage: string): void;
  /**
   * The runtime exited: settles only the invocations it had received (the queued ones wait for the
   * next runtime), drops its internal extensions and starts a new Init for the next runtime.
   */
  failRunning(errorType: string, errorMessage: string): void;
  /** When an invocation reached the runtime, was answered, and every extension asked for the next event (epoch ms). */
  invokePhase(requestId: string): InvokePhase | undefined;
  /** The names of the registered extensions. */
  extensions(): string[];
  close(): Promise<void>;
}

export interface InvokePhase {
  readonly deliveredAt: number;
  respondedAt?: number;
  /** The Invoke phase's end: the last extension asked for the next event after the runtime answered. */
  extensionsDoneAt?: number;
}

interface Extension {
  readonly id: string;
  readonly name: string;
  poller: ServerResponse | undefined;
  readonly events: string[];
}

interface Pending {
  readonly requestId: string;
  readonly timeoutMs: number;
  readonly tenantId: string | undefined;
  readonly body: string;
  readonly settle: (outcome: InvokeAnswer) => void;
  timer?: NodeJS.Timeout;
}

export async function startRuntimeApiEmulator(options: EmulatorOptions): Promise<RuntimeApiEmulator> {
  const functionArn = options.functionArn ?? 'arn:aws:lambda:us-east-1:000000000000:function:jube-r-execute';
  const queue: Pending[] = [];
  const running = new Map<string, Pending>();
  const pollers: ServerResponse[] = [];
  let initError: InvokeAnswer | undefined;
  const extensions = new Map<string, Extension>();
  const phases = new Map<string, InvokePhase>();
  let initDone = false;
  let phase: string | undefined;

  const extensionsIdle = (): boolean => [...extensions.values()].every((e) => e.poller !== undefined && e.events.length === 0);
  const sendEvent = (extension: Extension): void => {
    const res = extension.poller;
    const event = extension.events[0];
    if (!res || event === undefined) return;
    extension.events.shift();
    extension.poller = undefined;
    res.writeHead(200, { 'Content-Type': 'application/json', 'Lambda-Extension-Event-Identifier': randomUUID() });
    res.end(event);
  };
  /** The Invoke phase ends once the runtime answered and every extension is waiting again. */
  const closePhase = (): void => {
    if (phase === undefined || running.has(phase) || !extensionsIdle()) return;
    const record = phases.get(phase);
    if (record) record.extensionsDoneAt = Date.now();
    phase = undefined;
  };

  const settle = (pending: Pending, outcome: InvokeAnswer): void => {
    clearTimeout(pending.timer);
    const record = phases.get(pending.requestId);
    if (record && running.has(pending.requestId)) record.respondedAt = Date.now();
    running.delete(pending.requestId);
    closePhase();
    const queued = queue.indexOf(pending);
    if (queued >= 0) queue.splice(queued, 1);
    pending.settle(outcome);
    deliver();
  };

  // As Lambda: the next event goes out only once the current one is settled, so a second poller
  // (a script's own GET /next during its run) never receives another caller's event.
  const deliver = (): void => {
    while (running.size === 0 && phase === undefined && extensionsIdle() && queue.length > 0 && pollers.length > 0) {
      const res = pollers.shift()!;
      if (res.destroyed) continue;
      const pending = queue.shift()!;
      running.set(pending.requestId, pending);
      const deadline = Date.now() + pending.timeoutMs;
      phases.set(pending.requestId, { deliveredAt: Date.now() });
      phase = pending.requestId;
      const invoke = JSON.stringify({ eventType: 'INVOKE', deadlineMs: deadline, requestId: pending.requestId, invokedFunctionArn: functionArn, tracing: { type: 'X-Amzn-Trace-Id', value: '' } });
      for (const extension of extensions.values()) {
        extension.events.push(invoke);
        sendEvent(extension);
      }
      pending.timer = setTimeout(
        () =>
          settle(pending, {
            ok: false,
            errorType: 'Sandbox.Timedout',
            errorMessage: `Task timed out after ${(pending.timeoutMs / 1000).toFixed(2)} seconds`,
          }),
        pending.timeoutMs,
      );
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Lambda-Runtime-Aws-Request-Id': pending.requestId,
        'Lambda-Runtime-Deadline-Ms': String(deadline),
        'Lambda-Runtime-Invoked-Function-Arn': functionArn,
        ...(pending.tenantId === undefined ? {} : { 'Lambda-Runtime-Aws-Tenant-Id': pending.tenantId }),
        'Lambda-Runtime-Trace-Id': `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomUUID().replace(/-/g, '').slice(0, 24)};Parent=${randomUUID().replace(/-/g, '').slice(0, 16)};Sampled=0`,
      });
      res.end(pending.body);
    }
  };

  const server = createServer((req, res) => {
    void route(req, res).catch((error: unknown) => {
      if (!res.headersSent) reply(res, 500, { errorType: 'EmulatorError', errorMessage: String(error) });
    });
  });

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://runtime');
    const path = url.pathname;
    if (path.startsWith(`${EXTENSION_API}/`)) {
      await extensionRoute(req, res, path);
      return;
    }
    if (req.method === 'GET' && path === `${API}/invocation/next`) {
      initDone = true;
      pollers.push(res);
      res.on('close', () => {
        const index = pollers.indexOf(res);
        if (index >= 0) pollers.splice(index, 1);
      });
      deliver();
      return;
    }
    const body = await readBody(req);
    if (req.method === 'POST' && path === `${API}/init/error`) {
      initError = functionError(req, body, 'Runtime.InitError');
      for (const pending of [...queue, ...running.values()]) settle(pending, initError);
      reply(res, 202, { status: 'OK' });
      return;
    }
    const match = /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/(response|error)$/.exec(path);
    if (req.method !== 'POST' || !match) {
      reply(res, 404, { errorType: 'NotFound', errorMessage: `no route ${req.method} ${path}` });
      return;
    }
    const pending = running.get(decodeURIComponent(match[1]!));
    if (!pending) {
      reply(res, 400, { errorType: 'InvalidRequestID', errorMessage: 'unknown or already settled request id' });
      return;
    }
    if (match[2] === 'error') {
      settle(pending, functionError(req, body, 'Unhandled'));
    } else if (body.length > MAX_RESPONSE_BYTES) {
      settle(pending, {
        ok: false,
        errorType: 'Function.ResponseSizeTooLarge',
        errorMessage: `Response payload size (${body.length} bytes) exceeded maximum allowed payload size (${MAX_RESPONSE_BYTES} bytes).`,
      });
      reply(res, 413, { errorType: 'RequestEntityTooLarge', errorMessage: 'response too large' });
      return;
    } else {
      settle(pending, { ok: true, payload: body.length === 0 ? null : JSON.parse(body.toString('utf8')) });
    }
    reply(res, 202, { status: 'OK' });
  };

  // The runtime process is gone (it died, or retired its environment): its internal extensions
  // died with it, and Lambda's reset of the environment is a new Init phase, in which the next
  // runtime's extensions register afresh. An Invoke phase they never finished ends here too, or no
  // further event would ever be delivered.
  const runtimeGone = (): void => {
    for (const extension of extensions.values()) extension.poller?.destroy();
    extensions.clear();
    initDone = false;
    if (phase !== undefined && !running.has(phase)) phase = undefined;
  };

  const extensionRoute = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    if (req.method === 'POST' && path === `${EXTENSION_API}/register`) {
      await readBody(req);
      const name = req.headers['lambda-extension-name'];
      if (typeof name !== 'string' || name.length === 0) return reply(res, 400, { errorType: 'InvalidRequest', errorMessage: 'Lambda-Extension-Name is required' });
      const again = [...extensions.values()].find((e) => e.name === name);
      if (initDone && !again) return reply(res, 403, { errorType: 'Extension.RegistrationError', errorMessage: 'registration after the runtime asked for its first event' });
      if (again) {
        again.poller?.destroy();
        extensions.delete(again.id);
      }
      const id = randomUUID();
      extensions.set(id, { id, name, poller: undefined, events: [] });
      res.writeHead(200, { 'Content-Type': 'application/json', 'Lambda-Extension-Identifier': id });
      res.end(JSON.stringify({ functionName: functionArn.split(':').at(-1), functionVersion: '$LATEST', handler: 'handler.handler' }));
      return;
    }
    const id = req.headers['lambda-extension-identifier'];
    const extension = typeof id === 'string' ? extensions.get(id) : undefined;
    if (req.method === 'GET' && path === `${EXTENSION_API}/event/next`) {
      if (!extension) return reply(res, 403, { errorType: 'Extension.UnknownExtensionIdentifier', errorMessage: 'register first' });
      extension.poller = res;
      // A poll that closes unanswered: the extension's process is gone, and holds nothing any more.
      res.on('close', () => {
        if (extension.poller === res && !res.writableEnded) {
          extensions.delete(extension.id);
          closePhase();
          deliver();
        }
      });
      sendEvent(extension);
      closePhase();
      deliver();
      return;
    }
    await readBody(req);
    if (req.method === 'POST' && (path === `${EXTENSION_API}/init/error` || path === `${EXTENSION_API}/exit/error`)) {
      if (extension) extensions.delete(extension.id);
      reply(res, 202, { status: 'OK' });
      closePhase();
      deliver();
      return;
    }
    reply(res, 404, { errorType: 'NotFound', errorMessage: `no route ${req.method} ${path}` });
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if ('path' in options.listen) server.listen(options.listen.path, resolve);
    else server.listen(options.listen.port, options.listen.host, resolve);
  });
  const bound = server.address();
  const address =
    typeof bound === 'string' ? bound : `${(bound as AddressInfo).address}:${(bound as AddressInfo).port}`;

  return {
    address,
    invoke: (payload, invocation) =>
      new Promise<InvokeAnswer>((resolve) => {
        if (initError) return resolve(initError);
        queue.push({
          requestId: invocation.requestId,
          timeoutMs: invocation.timeoutMs,
          tenantId: invocation.tenantId,
          body: JSON.stringify(payload),
          settle: resolve,
        });
        deliver();
      }),
    initError: () => initError,
    invokePhase: (requestId) => phases.get(requestId),
    extensions: () => [...extensions.values()].map((e) => e.name),
    failRunning: (errorType, errorMessage) => {
      for (const pending of [...running.values()]) settle(pending, { ok: false, errorType, errorMessage });
      runtimeGone();
      deliver();
    },
    failAll: (errorType, errorMessage) => {
      for (const pending of [...queue, ...running.values()]) settle(pending, { ok: false, errorType, errorMessage });
      runtimeGone();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of pollers.splice(0)) res.destroy();
        for (const extension of extensions.values()) extension.poller?.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function functionError(req: IncomingMessage, body: Buffer, fallbackType: string): InvokeAnswer {
  let parsed: { errorType?: unknown; errorMessage?: unknown } = {};
  try {
    parsed = JSON.parse(body.toString('utf8')) as typeof parsed;
  } catch {
    // The runtime may post a non-JSON body; the header still names the type.
  }
  const header = req.headers['lambda-runtime-function-error-type'];
  return {
    ok: false,
    errorType: typeof parsed.errorType === 'string' ? parsed.errorType : (typeof header === 'string' ? header : fallbackType),
    errorMessage: typeof parsed.errorMessage === 'string' ? parsed.errorMessage : body.toString('utf8'),
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}
