/**
 * The names GET /health uses for sandbox layers. The execute runtime reports the ones it detects
 * (functions/execute/sandbox.ts) and a deployment declares its own (infra, JUBE_R_SANDBOX_LAYERS);
 * both take the names from here, so one layer never appears under two names.
 */
import type { ServiceConfig } from '../config/service-config.ts';
import type { SandboxStatus } from './api.ts';

/** What every execute handler does, wherever it runs. */
export const EXECUTE_HANDLER_LAYERS = [
  'fresh-rscript-per-call',
  'allow-listed-environment',
  'private-workdir',
  'process-group-kill',
  'output-caps',
] as const;

/** prlimit on the Rscript (absent only when JUBE_R_PRLIMIT=none). */
export const RLIMITS_LAYER = 'rlimits';

/** bubblewrap, where the host allows its namespaces (never in Lambda). */
export const BWRAP_LAYERS = ['bwrap-namespaces', 'no-network', 'read-only-system-dirs'] as const;

/** The layers the deployment declares (JUBE_R_SANDBOX_LAYERS), if it declares any. */
export function configuredSandbox(config: Pick<ServiceConfig, 'sandboxLayers'>): SandboxStatus | undefined {
  return config.sandboxLayers === undefined ? undefined : { source: 'config', layers: [...config.sandboxLayers] };
}
