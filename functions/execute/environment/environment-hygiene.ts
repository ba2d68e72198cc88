/**
 * One cleaning of the execution environment, the same at init, before every run and after every
 * run (docs/threat-model.md, "handler hygiene"). After-run cleaning alone is not enough: a crash or
 * a Lambda timeout ends the runtime before it, and Lambda's reset keeps /tmp and every kernel
 * object of the microVM, so the next init, and every run, cleans first. In order: every process but
 * the handler's chain (which also ends what holds a segment attached or a socket listening), the
 * writable directories, System V IPC objects, POSIX queues and the user's kernel keys, then a check
 * that no listener is left. After a run the cleaning comes in two parts around the handler's reads
 * of what the run left (HygienePart): first everything that runs, then the files. Whatever could
 * not be cleaned is a problem; the handler fails the invocation and retires.
 */
import { existsSync } from 'node:fs';
import type { Containment } from '../run/containment.ts';
import { ancestry, sweepEnvironment, wipeDirectories, wipeProblem, type SweepReport, type WipeReport } from './hygiene.ts';
import { cleanSysvIpc, type SysvReport } from './ipc-hygiene.ts';
import { clearKernelKeys, keysHelper, type KeysOutcome } from './keyring-hygiene.ts';
import { strayListeners, type TcpListener } from './listeners.ts';

export type HygienePhase = 'init' | 'before-run' | 'after-run';

export interface HygieneSettings {
  /** Kill every process but the handler's chain (only where nothing else may run: the image). */
  readonly sweep: boolean;
  readonly wipe: readonly string[];
  /** SysV IPC objects of the handler's user, and POSIX queues where `mqueue` is mounted. */
  readonly ipc: boolean;
  readonly mqueue: string | undefined;
  /** Fail when a TCP listener outside the handler's chain is left (needs `sweep`). */
  readonly listeners: boolean;
  /** AWS_LAMBDA_RUNTIME_API: its listener is the platform's. */
  readonly runtimeApi: string | undefined;
  /** The program that empties the user's kernel key anchors, with its arguments (with the IPC hygiene). */
  readonly keys?: readonly string[] | undefined;
}

/** Where the POSIX message queue filesystem is mounted by convention. */
export const MQUEUE_DIR = '/dev/mqueue';

/** The settings the containment implies; undefined when there is nothing to clean (the host's default). */
export function hygieneSettings(containment: Containment, env: NodeJS.ProcessEnv = process.env): HygieneSettings | undefined {
  const environment = containment.sweep === 'environment';
  const ipc = environment && containment.ipcHygiene;
  if (!environment && containment.wipeAfterRun.length === 0) return undefined;
  return {
    sweep: environment,
    wipe: containment.wipeAfterRun,
    ipc,
    mqueue: ipc && existsSync(MQUEUE_DIR) ? MQUEUE_DIR : undefined,
    listeners: environment,
    runtimeApi: env['AWS_LAMBDA_RUNTIME_API'],
    keys: ipc ? [keysHelper()] : undefined,
  };
}

export interface HygieneReport {
  readonly phase: HygienePhase;
  /** Wall time of the whole cleaning. */
  readonly ms: number;
  readonly sweep?: SweepReport | undefined;
  readonly wipe?: WipeReport | undefined;
  readonly sysv?: SysvReport | undefined;
  readonly mqueue?: WipeReport | undefined;
  readonly listeners?: readonly TcpListener[] | undefined;
  readonly keys?: KeysOutcome | undefined;
  /** Empty: the environment is clean. Each entry says what is left, never what it held. */
  readonly problems: readonly string[];
}

/** Names a problem line keeps: it goes into a response and a log line, whatever a run left. */
export const PROBLEM_NAMES = 10;

/** The first PROBLEM_NAMES of `items`, and how many more there are. */
export function few(items: readonly (string | number)[]): string {
  const more = items.length - PROBLEM_NAMES;
  return [...items.slice(0, PROBLEM_NAMES), ...(more > 0 ? [`${more} more`] : [])].join(', ');
}

/** What a cleaning leaves alone: the idle warm runners' processes and workdirs (functions/execute/warm/). */
export interface HygieneSpare {
  readonly pids: ReadonlySet<number>;
  readonly paths: readonly string[];
}

/**
 * Which part of a cleaning: `all`; `stop`, everything that runs or holds kernel state (the sweep,
 * IPC objects, POSIX queues, kernel keys, the listener check), which after a run must come before
 * the handler reads anything the run left, so no survivor changes it under the reads; `files`, the
 * wipe of the writable places, which must come after those reads.
 */
export type HygienePart = 'all' | 'stop' | 'files';

export async function cleanEnvironment(phase: HygienePhase, settings: HygieneSettings, spare?: HygieneSpare, part: HygienePart = 'all'): Promise<HygieneReport> {
  const started = performance.now();
  const stop = part !== 'files';
  const files = part !== 'stop';
  const sweep = stop && settings.sweep ? await sweepEnvironment(process.pid, spare?.pids) : undefined;
  const [wipe, sysv, mqueue, keys] = await Promise.all([
    files && settings.wipe.length > 0 ? wipeDirectories(settings.wipe, undefined, spare?.paths) : undefined,
    stop && settings.ipc ? cleanSysvIpc() : undefined,
    stop && settings.mqueue ? wipeDirectories([settings.mqueue]) : undefined,
    stop && settings.keys !== undefined ? clearKernelKeys(settings.keys) : undefined,
  ]);
  const listeners = stop && settings.listeners ? await strayListeners(await ancestry(), settings.runtimeApi) : undefined;
  const problems = [
    ...(sweep && sweep.survivors.length > 0 ? [`processes ${few(sweep.survivors)} survived the sweep`] : []),
    ...(wipe && wipeProblem(wipe) ? [wipeProblem(wipe)!] : []),
    ...(sysv && sysv.remaining.length > 0 ? [`System V IPC objects ${few(sysv.remaining.map((o) => `${o.kind} ${o.id}`))} could not be removed`] : []),
    ...(mqueue && wipeProblem(mqueue) ? [wipeProblem(mqueue, 'POSIX message queues ')!] : []),
    ...(listeners && listeners.length > 0 ? [`TCP listeners on ports ${few(listeners.map((l) => l.port))} are left`] : []),
    ...(keys?.state === 'failed' ? [`kernel keys could not be cleared (${keys.step})`] : []),
  ];
  return { phase, ms: Math.round((performance.now() - started) * 10) / 10, sweep, wipe, sysv, mqueue, listeners, keys, problems };
}

/** One report of a cleaning done in two parts (`stop`, then `files`): each field from the part that set it. */
export function joinReports(first: HygieneReport, second: HygieneReport): HygieneReport {
  const pick = <K extends keyof HygieneReport>(key: K) => first[key] ?? second[key];
  return {
    phase: first.phase,
    ms: Math.round((first.ms + second.ms) * 10) / 10,
    sweep: pick('sweep'),
    wipe: pick('wipe'),
    sysv: pick('sysv'),
    mqueue: pick('mqueue'),
    listeners: pick('listeners'),
    keys: pick('keys'),
    problems: [...first.problems, ...second.problems],
  };
}
