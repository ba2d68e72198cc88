/**
 * How the local stack runs the execute function behind its Lambda Invoke endpoint: in-process with
 * host R (the default) or inside the r-image container through the Lambda Runtime API emulator
 * (JUBE_R_EXECUTE_RUNTIME=container). Either way the endpoint sees the same outcome shape that
 * Lambda's Invoke API reports: a payload, or a function error.
 */
export type InvokeOutcome =
  | { readonly ok: true; readonly payload: unknown }
  | { readonly ok: false; readonly errorType: string; readonly errorMessage: string };

export interface InvokeContext {
  readonly requestId: string;
  /** The function's configured timeout; the runtime must answer (or fail) within it. */
  readonly timeoutMs: number;
}

export interface ExecuteRuntime {
  readonly kind: 'process' | 'container';
  invoke(payload: unknown, context: InvokeContext): Promise<InvokeOutcome>;
  /** Stops everything the runtime started; no R process may outlive it. */
  close(): Promise<void>;
}
