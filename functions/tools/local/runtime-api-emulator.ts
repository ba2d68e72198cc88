/**
 * A Lambda Runtime API (2018-06-01) and Extensions API (2020-01-01) emulator: what a container
 * image's runtime interface client and its internal extension talk to through
 * AWS_LAMBDA_RUNTIME_API. One emulator is one execution environment, from its Init to its end:
 * invocations are delivered one at a time, in order, to `GET .../invocation/next` (a long poll),
 * and settle when the runtime posts `.../response` or `.../error`, or when the function's timeout
 * passes. An environment that ends (its runtime exited, timed out, reported an init error, or broke
 * the protocol) is never used again: its owner starts a fresh one (container-runtime.ts), as Lambda
 * resets an environment or replaces it.
 *
 * The state machine follows the published Runtime Interface Emulator
 * (github.com/aws/aws-lambda-runtime-interface-emulator, internal/lambda/) and AWS's pages
 * (https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html,
 * https://docs.aws.amazon.com/lambda/latest/dg/runtimes-extensions-api.html,
 * https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html):
 *
 * - Registration only during Init: the registration service is turned off once the runtime asks
 *   for its first event (rapid/handlers.go 382-383, `registrationService.TurnOff()`); a later
 *   `register` gets "Extension registration closed already", and a name already registered gets
 *   "Extension with this name already registered" (rapi/handler/agentregister.go 182-188,
 *   core/registrations.go 246-269).
 * - `init/error` only during Init: only the runtime's Started state accepts it (core/states.go
 *   275-279; every other state refuses it, 84-94, answered 403 InvalidStateTransition by
 *   rapi/handler/initerror.go 58-63). An environment whose Init failed is not used again: the
 *   calls waiting for it get the init error, and the next call gets a fresh environment with a new
 *   Init, as Lambda runs Init again on the next invoke (runtimes-api.html, "Initialization error").
 *   Nothing of the error is remembered past its environment.
 * - One outstanding Next per registered client: an internal extension that asks for its next event
 *   while it is already waiting is refused (its Ready state allows only ExitError,
 *   core/internalagent_states.go 77-93), as is an identifier never registered
 *   (rapi/handler/agentnext.go 49-52). For the runtime the published state machine is laxer: a
 *   Next while an invocation runs is accepted (core/states.go 358-360), which is how native code
 *   on loopback could read later events in Lambda (docs/threat-model.md, "Residual risks"). This
 *   emulator is stricter on purpose: a second Next, whether one is already waiting or an invocation
 *   is running, breaks the protocol.
 * - A runtime or extension that breaks the protocol ends its environment: each refused request
 *   above (a late registration, a late `init/error`, a second Next, an unknown identifier) is
 *   answered 403 as the RIE answers it, and the environment ends with it; so do an extension's
 *   `init/error` or `exit/error` (it failed: Lambda resets the environment, lambda-runtime-environment.html,
 *   "Failures during the Invoke phase"), an extension's or the runtime's poll closed unanswered
 *   (its process is gone), and a function timeout (Lambda resets the environment then too). The
 *   invocation that was running gets the end's error; those not yet delivered are handed back
 *   undelivered, so the owner serves them in the next environment.
 *
 * It also keeps the rule that makes post-response work possible: an invocation's response settles
 * the caller at once, but the next invocation is delivered only once the runtime and every
 * extension have asked for the next event (the environment would be frozen then). Each
 * invocation's phases are recorded (invokePhase) so tests can measure them.
 *
 * Used by the local stack's container runtime (JUBE_R_EXECUTE_RUNTIME=container) and the image tests.
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

/** The error type of an invocation whose environment ended under it (Lambda's, for a runtime that exited). */
export const ENVIRONMENT_ENDED = 'Runtime.ExitError';

export type EmulatorListen = { readonly path: string } | { readonly host: string; readonly port: number };

export interface EmulatorOptions {
  readonly listen: EmulatorListen;
  readonly functionArn?: string;
  /** Where invocations' phases are recorded; a key's successive environments may share one. */
  readonly phases?: Map<string, InvokePhase>;
  /**
   * Called once when the environment ends, before any invocation is settled by the end, so an
   * owner that hands an undelivered invocation on already has the next environment under way.
   */
  readonly onEnd?: (end: EnvironmentEnd) => void;
}

export interface EmulatedInvocation {
  readonly requestId: string;
  /** The function's timeout; the clock starts when the runtime receives the event, as in Lambda. */
  readonly timeoutMs: number;
  readonly tenantId?: string | undefined;
}

/** Why an environment ended; `initFailed`: before its runtime ever asked for an event. */
export interface EnvironmentEnd {
  readonly errorType: string;
  readonly errorMessage: string;
  readonly initFailed: boolean;
}

/**
 * An invocation's outcome in one environment: an answer, or `undelivered` (the environment ended
 * before the runtime received it; nothing of it ran, so another environment may serve it).
 */
export type EmulatedOutcome = InvokeAnswer | { readonly ok: false; readonly undelivered: EnvironmentEnd };

export interface RuntimeApiEmulator {
  /** `host:port` for TCP, the socket path for a unix socket. */
  readonly address: string;
  invoke(payload: unknown, invocation: EmulatedInvocation): Promise<EmulatedOutcome>;
  /** Settles once, when this environment ends, with why. */
  readonly ended: Promise<EnvironmentEnd>;
  /** Ends the environment from outside (its runtime's process exited). */
  end(errorType: string, errorMessage: string): void;
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

/** An internal extension: registered (Init, no Next yet), waiting (a Next outstanding), or at an event. */
interface Extension {
  readonly id: string;
  readonly name: string;
  state: 'registered' | 'waiting' | 'busy';
  poller: ServerResponse | undefined;
  readonly events: string[];
}

interface Pending {
  readonly requestId: string;
  readonly timeoutMs: number;
  readonly tenantId: string | undefined;
  readonly body: string;
  readonly settle: (outcome: EmulatedOutcome) => void;
  timer?: NodeJS.Timeout;
}

/** The runtime's side: before its first Next (Init), waiting for an event, running one, or between. */
type RuntimeState = 'started' | 'waiting' | 'running' | 'answered';

/** A request the protocol does not allow here: answered 403 and the environment ends. */
class Violation extends Error {
  constructor(
    readonly errorType: string,
    message: string,
  ) {
    super(message);
  }
}

export async function startRuntimeApiEmulator(options: EmulatorOptions): Promise<RuntimeApiEmulator> {
  const functionArn = options.functionArn ?? 'arn:aws:lambda:us-east-1:000000000000:function:jube-r-execute';
  const queue: Pending[] = [];
  let running: Pending | undefined;
  let runtime: RuntimeState = 'started';
  let poller: ServerResponse | undefined;
  const extensions = new Map<string, Extension>();
  const phases = options.phases ?? new Map<string, InvokePhase>();
  let phase: string | undefined;
  let endedWith: EnvironmentEnd | undefined;
  let closing = false;
  let resolveEnded!: (end: EnvironmentEnd) => void;
  const ended = new Promise<EnvironmentEnd>((resolve) => (resolveEnded = resolve));

  const extensionsIdle = (): boolean => [...extensions.values()].every((e) => e.state === 'waiting' && e.events.length === 0);
  const sendEvent = (extension: Extension): void => {
    const res = extension.poller;
    const event = extension.events[0];
    if (!res || event === undefined) return;
    extension.events.shift();
    extension.poller = undefined;
    extension.state = 'busy';
    res.writeHead(200, { 'Content-Type': 'application/json', 'Lambda-Extension-Event-Identifier': randomUUID() });
    res.end(event);
  };
  /** The Invoke phase ends once the runtime answered and every extension is waiting again. */
  const closePhase = (): void => {
    if (phase === undefined || running !== undefined || !extensionsIdle()) return;
    const record = phases.get(phase);
    if (record) record.extensionsDoneAt = Date.now();
    phase = undefined;
  };

  const settle = (pending: Pending, outcome: EmulatedOutcome): void => {
    clearTimeout(pending.timer);
    if (running === pending) {
      const record = phases.get(pending.requestId);
      if (record) record.respondedAt = Date.now();
      running = undefined;
      if (runtime === 'running') runtime = 'answered';
    }
    const queued = queue.indexOf(pending);
    if (queued >= 0) queue.splice(queued, 1);
    pending.settle(outcome);
    closePhase();
    deliver();
  };

  /**
   * The environment ends: the running invocation gets `errorType`, the queued ones are handed back
   * undelivered (or, where Init failed, get the init's error: they were waiting for that Init), every
   * poll is dropped, and nothing is served here again.
   */
  const end = (errorType: string, errorMessage: string): void => {
    if (endedWith) return;
    const initFailed = runtime === 'started';
    endedWith = { errorType, errorMessage, initFailed };
    options.onEnd?.(endedWith);
    if (running) settle(running, { ok: false, errorType, errorMessage });
    for (const pending of queue.splice(0)) {
      clearTimeout(pending.timer);
      pending.settle(initFailed ? { ok: false, errorType, errorMessage } : { ok: false, undelivered: endedWith });
    }
    poller?.destroy();
    poller = undefined;
    for (const extension of extensions.values()) extension.poller?.destroy();
    resolveEnded(endedWith);
  };

  // The next event goes out only once the current one is settled and every extension is waiting
  // again: the runtime holds at most one event, and its Invoke phase is over before the next.
  const deliver = (): void => {
    if (endedWith || running || phase !== undefined || !extensionsIdle() || runtime !== 'waiting' || !poller) return;
    const pending = queue.shift();
    if (!pending) return;
    const res = poller;
    poller = undefined;
    running = pending;
    runtime = 'running';
    const deadline = Date.now() + pending.timeoutMs;
    phases.set(pending.requestId, { deliveredAt: Date.now() });
    phase = pending.requestId;
    const invoke = JSON.stringify({ eventType: 'INVOKE', deadlineMs: deadline, requestId: pending.requestId, invokedFunctionArn: functionArn, tracing: { type: 'X-Amzn-Trace-Id', value: '' } });
    for (const extension of extensions.values()) {
      extension.events.push(invoke);
      sendEvent(extension);
    }
    // Lambda resets an environment whose invocation timed out: whatever still runs there must
    // not answer the next call.
    pending.timer = setTimeout(() => {
      const message = `Task timed out after ${(pending.timeoutMs / 1000).toFixed(2)} seconds`;
      settle(pending, { ok: false, errorType: 'Sandbox.Timedout', errorMessage: message });
      end('Sandbox.Timedout', message);
    }, pending.timeoutMs);
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Lambda-Runtime-Aws-Request-Id': pending.requestId,
      'Lambda-Runtime-Deadline-Ms': String(deadline),
      'Lambda-Runtime-Invoked-Function-Arn': functionArn,
      ...(pending.tenantId === undefined ? {} : { 'Lambda-Runtime-Aws-Tenant-Id': pending.tenantId }),
      'Lambda-Runtime-Trace-Id': `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomUUID().replace(/-/g, '').slice(0, 24)};Parent=${randomUUID().replace(/-/g, '').slice(0, 16)};Sampled=0`,
    });
    res.end(pending.body);
  };

  const server = createServer((req, res) => {
    void route(req, res).catch((error: unknown) => {
      if (error instanceof Violation) {
        if (!res.headersSent) reply(res, 403, { errorType: error.errorType, errorMessage: error.message });
        end(ENVIRONMENT_ENDED, `the environment ended: ${error.message}`);
        return;
      }
      if (!res.headersSent) reply(res, 500, { errorType: 'EmulatorError', errorMessage: String(error) });
    });
  });

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://runtime');
    const path = url.pathname;
    if (endedWith) {
      await readBody(req);
      reply(res, 403, { errorType: 'InvalidStateTransition', errorMessage: 'this execution environment has ended' });
      return;
    }
    if (path.startsWith(`${EXTENSION_API}/`)) {
      await extensionRoute(req, res, path);
      return;
    }
    if (req.method === 'GET' && path === `${API}/invocation/next`) {
      if (runtime === 'waiting') throw new Violation('InvalidStateTransition', 'a second runtime Next while one is waiting');
      if (runtime === 'running') throw new Violation('InvalidStateTransition', 'a runtime Next while its invocation is running');
      // The runtime's first Next ends its Init: no extension registers after it.
      runtime = 'waiting';
      poller = res;
      res.on('close', () => {
        // A poll closed unanswered: the runtime's process is gone.
        if (poller === res && !res.writableEnded && !closing) end(ENVIRONMENT_ENDED, 'the runtime dropped its Next');
      });
      deliver();
      return;
    }
    const body = await readBody(req);
    if (req.method === 'POST' && path === `${API}/init/error`) {
      if (runtime !== 'started') throw new Violation('InvalidStateTransition', 'a runtime init/error after Init');
      reply(res, 202, { status: 'OK' });
      const reported = functionError(req, body, 'Runtime.InitError');
      end(reported.errorType, reported.errorMessage);
      return;
    }
    const match = /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/(response|error)$/.exec(path);
    if (req.method !== 'POST' || !match) {
      reply(res, 404, { errorType: 'NotFound', errorMessage: `no route ${req.method} ${path}` });
      return;
    }
    const pending = running?.requestId === decodeURIComponent(match[1]!) ? running : undefined;
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

  const extensionRoute = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    if (req.method === 'POST' && path === `${EXTENSION_API}/register`) {
      await readBody(req);
      const name = req.headers['lambda-extension-name'];
      if (typeof name !== 'string' || name.length === 0) throw new Violation('Extension.InvalidExtensionName', 'Empty extension name');
      if (runtime !== 'started') throw new Violation('Extension.RegistrationClosed', 'Extension registration closed already');
      if ([...extensions.values()].some((e) => e.name === name)) throw new Violation('Extension.InvalidState', 'Extension with this name already registered');
      const id = randomUUID();
      extensions.set(id, { id, name, state: 'registered', poller: undefined, events: [] });
      res.writeHead(200, { 'Content-Type': 'application/json', 'Lambda-Extension-Identifier': id });
      res.end(JSON.stringify({ functionName: functionArn.split(':').at(-1), functionVersion: '$LATEST', handler: 'handler.handler' }));
      return;
    }
    const id = req.headers['lambda-extension-identifier'];
    const extension = typeof id === 'string' ? extensions.get(id) : undefined;
    if (req.method === 'GET' && path === `${EXTENSION_API}/event/next`) {
      if (!extension) throw new Violation('Extension.UnknownExtensionIdentifier', 'Unknown extension identifier');
      if (extension.state === 'waiting') throw new Violation('Extension.InvalidState', `a second Next of extension ${extension.name} while one is waiting`);
      extension.state = 'waiting';
      extension.poller = res;
      res.on('close', () => {
        // A poll closed unanswered: the extension's process (the runtime's, for an internal one) is gone.
        if (extension.poller === res && !res.writableEnded && !closing) end('Extension.Crash', `extension ${extension.name} dropped its Next`);
      });
      sendEvent(extension);
      closePhase();
      deliver();
      return;
    }
    await readBody(req);
    if (req.method === 'POST' && (path === `${EXTENSION_API}/init/error` || path === `${EXTENSION_API}/exit/error`)) {
      if (!extension) throw new Violation('Extension.UnknownExtensionIdentifier', 'Unknown extension identifier');
      const init = path.endsWith('/init/error');
      // init/error only before the extension's first Next (core/internalagent_states.go 58-63 vs 77-93).
      if (init && extension.state !== 'registered') throw new Violation('Extension.InvalidState', `extension ${extension.name} reported init/error after its Init`);
      reply(res, 202, { status: 'OK' });
      end(init ? 'Extension.InitError' : 'Extension.ExitError', `extension ${extension.name} reported ${init ? 'init' : 'exit'}/error`);
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
    ended,
    invoke: (payload, invocation) =>
      new Promise<EmulatedOutcome>((resolve) => {
        if (endedWith) return resolve({ ok: false, undelivered: endedWith });
        queue.push({
          requestId: invocation.requestId,
          timeoutMs: invocation.timeoutMs,
          tenantId: invocation.tenantId,
          body: JSON.stringify(payload),
          settle: resolve,
        });
        deliver();
      }),
    end,
    invokePhase: (requestId) => phases.get(requestId),
    extensions: () => [...extensions.values()].map((e) => e.name),
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        end(ENVIRONMENT_ENDED, 'the execution environment was closed');
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function functionError(req: IncomingMessage, body: Buffer, fallbackType: string): { ok: false; errorType: string; errorMessage: string } {
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
