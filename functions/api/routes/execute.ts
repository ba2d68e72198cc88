/**
 * POST /execute: validate, then bind data, then run. A script the validator rejects never reaches
 * the execute function; it is answered here as `status: "rejected"` in the full response shape.
 */
import { clampTimeoutSeconds, timeoutClampNote } from '../../../layers/config/service-config.ts';
import { executeRequestSchema, type DataframeRequest } from '../../../layers/contract/api.ts';
import type { ExecuteResponse, ResolvedDataframe } from '../../../layers/contract/execute.ts';
import type { ValidationResult } from '../../../layers/contract/validation.ts';
import { DataframeTooLargeError, DataPointerUnresolvedError } from '../http/errors.ts';
import { parseBody } from '../http/parse-body.ts';
import { dataPointerUnresolvedMessage } from '../data-pointers/types.ts';
import { isolationKey } from '../invoke/isolation-key.ts';
import type { ApiDeps } from './deps.ts';

export interface ExecuteCall {
  readonly body: unknown;
  /** Whose data the call may bind, and the base of its isolation key. */
  readonly tenant: string;
  /** X-Jube-Session, validated; narrows the isolation key under `isolation: session`. */
  readonly session?: string | undefined;
  readonly requestId: string;
  /** The validate invocation's remaining time (Lambda context); unset: only the configured client timeout bounds the invoke. */
  readonly remainingTimeMs?: () => number;
}

export function rejectionSummary(validation: ValidationResult): string {
  const [first, ...rest] = validation.errors;
  if (!first) return 'script rejected by validation';
  const more = rest.length > 0 ? ` (and ${rest.length} more)` : '';
  return `script rejected by validation: ${first.code} at line ${first.line}, column ${first.column}: ${first.message}${more}`;
}

export async function execute(deps: ApiDeps, call: ExecuteCall): Promise<ExecuteResponse> {
  const started = deps.now();
  const request = parseBody(executeRequestSchema(deps.rules()), call.body);

  const validation = (await deps.validator())(request.script);
  if (!validation.valid) {
    return {
      status: 'rejected',
      consoleOutput: '',
      error: rejectionSummary(validation),
      warnings: [],
      durationMs: Math.max(0, deps.now() - started),
      timedOut: false,
      // The script's own problem, fixable by its author: dsprrr's "execution".
      errorType: 'execution',
      retryable: true,
      rVersion: deps.manifest().rVersion,
      timestamp: new Date(deps.now()).toISOString(),
      validation,
    };
  }

  let dataframes: readonly ResolvedDataframe[] = [];
  if (request.dataframes && request.dataframes.length > 0) {
    dataframes = await resolveDataframes(deps, call.tenant, request.dataframes);
  }

  // The execute function caps the notes; a note added to its response here would pass the cap.
  const clamped = timeoutClampNote(request.timeoutSeconds, deps.config);
  return (await deps.invoker()).invoke(
    {
      script: request.script,
      timeoutSeconds: clampTimeoutSeconds(request.timeoutSeconds, deps.config),
      variables: request.variables ?? [],
      dataframes: [...dataframes],
      ...(request.plots === undefined ? {} : { plots: request.plots }),
      ...(request.context === undefined ? {} : { context: request.context }),
      ...(request.outputBudget === undefined ? {} : { outputBudget: request.outputBudget }),
      ...(request.contextEncoding === undefined ? {} : { contextEncoding: request.contextEncoding }),
      ...(clamped === undefined ? {} : { notes: [clamped] }),
      requestId: call.requestId,
    },
    isolationKey(deps.config.isolation.mode, { tenant: call.tenant, session: call.session }),
    call.remainingTimeMs ? { remainingTimeMs: call.remainingTimeMs } : {},
  );
}

async function resolveDataframes(deps: ApiDeps, tenant: string, requests: readonly DataframeRequest[]): Promise<readonly ResolvedDataframe[]> {
  const outcome = await (await deps.resolver()).resolve(tenant, requests);
  if (outcome.ok) return outcome.dataframes;
  if (outcome.code === 'DATAFRAME_TOO_LARGE') throw new DataframeTooLargeError(outcome.message);
  throw new DataPointerUnresolvedError(dataPointerUnresolvedMessage(tenant));
}
