/**
 * Retiring an execution environment that the hygiene could not clean: the handler posts its answer
 * to the Lambda Runtime API itself and the runtime process exits before the runtime interface
 * client asks for another event. This is NOT a new environment: AWS documents that when a runtime
 * exits, Lambda resets the execution environment and initialises it again, in the same microVM,
 * and that /tmp survives the reset ("Understanding the Lambda execution environment lifecycle");
 * kernel objects (System V IPC) live as long as the microVM. What the exit buys is a new init, whose
 * hygiene cleans before the next run; what keeps another key out is the microVM per key (PER_TENANT).
 * Exiting after the client's own answer would be too late: by then it has already asked for the
 * next event, which would be lost with the process.
 */
import { request } from 'node:http';

export interface RetireTarget {
  /** AWS_LAMBDA_RUNTIME_API (host:port); absent outside a Lambda runtime. */
  readonly runtimeApi: string | undefined;
  readonly requestId: string | undefined;
}

/** Whether this process can retire its environment (it runs under a Lambda Runtime API). */
export function canRetire(target: RetireTarget): target is { runtimeApi: string; requestId: string } {
  return Boolean(target.runtimeApi && target.requestId);
}

/** POSTs the invocation's response to the Runtime API; resolves with its HTTP status. */
export function postResponse(runtimeApi: string, requestId: string, body: unknown): Promise<number> {
  const [host, port] = runtimeApi.split(':');
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host,
        port: Number(port ?? 80),
        method: 'POST',
        path: `/2018-06-01/runtime/invocation/${encodeURIComponent(requestId)}/response`,
        headers: { 'Content-Type': 'application/json', 'Content-Length': payload.length },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * Answers the invocation and ends the process. Never returns: the exit code tells Lambda (and the
 * local emulator) that the environment is done, not that the call failed (it was answered).
 */
export async function respondAndExit(target: { runtimeApi: string; requestId: string }, body: unknown, exit: (code: number) => never = process.exit): Promise<never> {
  let status = 0;
  try {
    status = await postResponse(target.runtimeApi, target.requestId, body);
  } catch {
    // The runtime API is gone: there is nobody left to answer.
  }
  return exit(status === 202 ? 0 : 1);
}
