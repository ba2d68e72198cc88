/**
 * What the routes need from the outside world, each loaded lazily and at most once per process
 * (a Lambda execution environment or the local stack). Tests replace any of them. The heavy ones
 * (the validator's grammar, the AWS SDK clients) are imported on first use, which keeps cold
 * starts and the local stack's start short.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { ServiceConfig } from '../../../layers/config/service-config.ts';
import type { HelpIndex } from '../../../layers/packages/help.ts';
import type { PackageManifest } from '../../../layers/packages/manifest.ts';
import type { ScriptRules } from '../../../layers/rules/rules.ts';
import type { Validator } from '../../../layers/validator/validator.ts';
import type { DataPointerResolver } from '../data-pointers/types.ts';
import type { ExecuteInvoker } from '../invoke/execute-invoker.ts';
import type { SandboxStatus, WarmStatus } from '../../../layers/contract/api.ts';
import type { IsolationBoundary } from '../../../layers/contract/isolation.ts';
import type { CallerBinding } from '../http/caller.ts';
import type { SessionStore } from '../sessions/store.ts';

export interface ApiDeps {
  readonly config: ServiceConfig;
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  readonly version: string;
  /** Process start, for `uptimeSeconds`. */
  readonly startedAt: number;
  readonly now: () => number;
  readonly rules: () => ScriptRules;
  readonly manifest: () => PackageManifest;
  /** The precomputed help pages (GET /help), read on the first lookup. */
  readonly help: () => HelpIndex;
  readonly validator: () => Promise<Validator>;
  readonly resolver: () => Promise<DataPointerResolver>;
  readonly invoker: () => Promise<ExecuteInvoker>;
  /** Where sessions keep their snapshots (functions/api/sessions/). */
  readonly sessions: () => Promise<SessionStore>;
  readonly sandbox: () => Promise<SandboxStatus>;
  /** Who may name which tenant in the path (functions/api/http/caller.ts; GET /health `isolation.tenantBinding`). */
  readonly callers: CallerBinding;
  /** What keeps two isolation keys apart where this API runs (GET /health `isolation.boundary`). */
  readonly isolationBoundary: IsolationBoundary;
  /** The execute side's warm start, as far as this API can see it (GET /health `warm`). */
  readonly warm: () => Promise<WarmStatus>;
}

/** Calls `load` once and keeps what it returned (a rejected promise is forgotten, so a retry can succeed). */
export function once<T>(load: () => T): () => T {
  let loaded = false;
  let value: T;
  return () => {
    if (!loaded) {
      value = load();
      loaded = true;
      if (value instanceof Promise) {
        value.catch(() => {
          loaded = false;
        });
      }
    }
    return value;
  };
}
