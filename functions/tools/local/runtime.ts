/**
 * What the local Lambda endpoint needs from whatever runs the execute function (in this process
 * or in the image's container): an invocation answered the way Lambda's Invoke API reports it,
 * a payload or a function error.
 */
import type { WarmStatus } from '../../../layers/contract/api.ts';

export type InvokeAnswer =
  | { readonly ok: true; readonly payload: unknown }
  | {
      readonly ok: false;
      readonly errorType: string;
      readonly errorMessage: string;
      /** Refused before running, as Lambda refuses with TooManyRequestsException (no environment for the key). */
      readonly throttled?: true;
    };

export interface InvokeContext {
  readonly requestId: string;
  /** The function's configured timeout; the runtime must answer (or fail) within it. */
  readonly timeoutMs: number;
  /** The invoke's TenantId (functions with tenant isolation), passed to the runtime as Lambda does. */
  readonly tenantId?: string | undefined;
}

export interface ExecuteRuntime {
  readonly kind: 'process' | 'container';
  invoke(payload: unknown, context: InvokeContext): Promise<InvokeAnswer>;
  /** Starts what the first call needs (the handler and its warm runners), ahead of it. */
  warm?(): Promise<void>;
  /** The warm start as this runtime sees it now (GET /health `warm`). */
  warmStatus(): Promise<WarmStatus>;
  /** Stops everything the runtime started; no R process may outlive it. */
  close(): Promise<void>;
}
