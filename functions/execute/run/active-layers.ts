/**
 * Which sandbox layers a run has and which this process offers (GET /health): the handler's own,
 * rlimits, bubblewrap's namespaces (bwrap.ts), the capsule as its report names what it armed, and
 * the hygiene the containment settings turn on. The names come from layers/contract/sandbox-layers.ts.
 */
import { execa } from 'execa';
import {
  BWRAP_LAYERS,
  capsuleLayers,
  EXECUTE_HANDLER_LAYERS,
  HYGIENE_LAYERS,
  RLIMITS_LAYER,
} from '../../../layers/contract/sandbox-layers.ts';
import type { RuntimeSettings } from '../runtime-settings.ts';
import { resolveNamespaces, type ActiveNamespaces } from './bwrap.ts';
import type { CapsuleSettings, Containment } from './containment.ts';

/**
 * The sandbox layers of a run with these rlimits, these namespaces, this hygiene and the capsule
 * report the runner wrote ("preload=armed landlock=abi6 seccomp=active"; absent when R never
 * reached the arming).
 */
export function runSandboxLayers(
  runtime: Pick<RuntimeSettings, 'prlimit' | 'containment'>,
  namespaces: ActiveNamespaces,
  capsuleReport: string | undefined,
): string[] {
  const layers: string[] = [...EXECUTE_HANDLER_LAYERS];
  if (runtime.prlimit) layers.push(RLIMITS_LAYER);
  if (namespaces.kind === 'bwrap') layers.push(...BWRAP_LAYERS);
  if (capsuleReport !== undefined) layers.push(...capsuleLayers(capsuleReport));
  layers.push(...hygieneLayers(runtime.containment));
  return layers;
}

function hygieneLayers(containment: Containment): string[] {
  return [
    ...(containment.sweep === 'environment' ? [HYGIENE_LAYERS.environmentSweep] : []),
    ...(containment.wipeAfterRun.length > 0 ? [HYGIENE_LAYERS.writableWipe] : []),
    // IPC cleaning runs with the environment-wide sweep (environment-hygiene.ts).
    ...(containment.sweep === 'environment' && containment.ipcHygiene ? [HYGIENE_LAYERS.ipcCleanup] : []),
  ];
}

const probes = new Map<string, Promise<string>>();

/**
 * What the capsule arms on this host, asked once per process of its probe (a throwaway process
 * armed exactly as the runner arms R): the same report a run's envelope carries.
 */
export function probeCapsule(capsule: CapsuleSettings): Promise<string> {
  const key = `${capsule.probe}\0${capsule.library}\0${capsule.kernel}`;
  let probe = probes.get(key);
  if (!probe) {
    probe = execa(capsule.probe, [capsule.library], {
      reject: false,
      timeout: 5000,
      extendEnv: false,
      env: { PATH: '/usr/bin:/bin', JUBE_R_CAPSULE_KERNEL: capsule.kernel },
    }).then(
      (result) => String(result.stdout).trim() || `preload=unavailable(probe exit ${result.exitCode})`,
      (error: unknown) => `preload=unavailable(${(error as Error).message})`,
    );
    probes.set(key, probe);
  }
  return probe;
}

/** The sandbox layers active for executions in this process, for GET /health. */
export async function activeSandboxLayers(runtime: Pick<RuntimeSettings, 'namespaces' | 'prlimit' | 'containment'>): Promise<string[]> {
  const capsule = runtime.containment.capsule;
  const [namespaces, report] = await Promise.all([resolveNamespaces(runtime.namespaces), capsule ? probeCapsule(capsule) : Promise.resolve(undefined)]);
  return runSandboxLayers(runtime, namespaces, report);
}
