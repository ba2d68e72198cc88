/**
 * POST /execute: validate, then bind data, then run. A script the validator rejects never reaches
 * the execute function; it is answered here as `status: "rejected"` in the full response shape.
 */
import { clampTimeoutSeconds, sessionTransitBytes, timeoutClampNote } from '../../../layers/config/service-config.ts';
import { executeRequestSchema, type DataframeRequest } from '../../../layers/contract/api.ts';
import type { ExecuteResponse, ResolvedDataframe } from '../../../layers/contract/execute.ts';
import type { ValidationResult } from '../../../layers/contract/validation.ts';
import { DataframeTooLargeError, DataPointerUnresolvedError } from '../http/errors.ts';
import { parseBody } from '../http/parse-body.ts';
import { dataPointerUnresolvedMessage } from '../data-pointers/types.ts';
import { isolationKey } from '../invoke/isolation-key.ts';
import { OVERSIZED_SNAPSHOT_NOTE, startSession, type SessionStart } from '../sessions/store.ts';
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

  // A session's workspace: the store's snapshot goes with the call, and the one it writes comes back.
  const keeps = call.session !== undefined && deps.config.isolation.mode !== 'run';
  const store = keeps ? await deps.sessions() : undefined;
  const start: SessionStart | undefined = store && call.session
    ? await startSession(store, deps.config.sessions, call.tenant, call.session, deps.now(), sessionTransitBytes(deps.config.sessions.maxBytes))
    : undefined;
  // The execute function caps the notes; a note added to its response here would pass the cap.
  const notes = [
    timeoutClampNote(request.timeoutSeconds, deps.config),
    call.session && !keeps ? RUN_KEEPS_NO_SESSION : undefined,
    start && start.call > 0 && start.snapshot === undefined && !start.expired ? OVERSIZED_SNAPSHOT_NOTE : undefined,
  ].filter((note): note is string => note !== undefined);
  const { sessionSnapshot, ...response } = await (await deps.invoker()).invoke(
    {
      script: request.script,
      timeoutSeconds: clampTimeoutSeconds(request.timeoutSeconds, deps.config),
      variables: request.variables ?? [],
      dataframes: [...dataframes],
      ...(request.plots === undefined ? {} : { plots: request.plots }),
      ...(request.context === undefined ? {} : { context: request.context }),
      ...(request.outputBudget === undefined ? {} : { outputBudget: request.outputBudget }),
      ...(request.contextEncoding === undefined ? {} : { contextEncoding: request.contextEncoding }),
      ...(notes.length === 0 ? {} : { notes }),
      requestId: call.requestId,
      ...(start && call.session ? { session: { id: call.session, ...start } } : {}),
    },
    isolationKey(deps.config.isolation.mode, { tenant: call.tenant, session: call.session }),
    call.remainingTimeMs ? { remainingTimeMs: call.remainingTimeMs } : {},
  );
  if (!store || !call.session || !start || sessionSnapshot === undefined || !response.session || response.session.call <= start.call) return response;
  try {
    await store.put(call.tenant, call.session, { call: response.session.call, snapshot: sessionSnapshot });
    return response;
  } catch (error) {
    deps.logger.error('the session store refused a snapshot', { tenant: call.tenant, error });
    const kept = `this call's workspace was not kept (the session store failed); the session's next call gets the workspace of call ${start.call}`;
    return { ...response, session: { ...response.session, call: start.call }, notes: [...(response.notes ?? []), kept] };
  }
}

const RUN_KEEPS_NO_SESSION =
  'X-Jube-Session keeps no workspace on this deployment (isolation: run gives every call a new environment and an empty workspace)';

async function resolveDataframes(deps: ApiDeps, tenant: string, requests: readonly DataframeRequest[]): Promise<readonly ResolvedDataframe[]> {
  const outcome = await (await deps.resolver()).resolve(tenant, requests);
  if (outcome.ok) return outcome.dataframes;
  if (outcome.code === 'DATAFRAME_TOO_LARGE') throw new DataframeTooLargeError(outcome.message);
  throw new DataPointerUnresolvedError(dataPointerUnresolvedMessage(tenant));
}
