/**
 * One warm runner: an Rscript started before its request (r-image/runner/warm.R) with everything
 * a cold one gets (spawn-rscript.ts: prlimit, the optional bubblewrap, its own process group, the
 * allow-listed environment with the capsule preloaded; child-env.ts) in its own fresh workdir,
 * which the capsule reads when R starts. It is handed exactly one request, then ends; it is
 * never reused. Before the request the handler reads its stderr for the runner's control lines
 * (ready, pong); from the hand-over on, its stdout and stderr are the run's (run-script.ts).
 */
import { randomBytes } from 'node:crypto';
import type { ServiceConfig } from '../../../layers/config/service-config.ts';
import { buildChildEnv } from '../run/child-env.ts';
import { killMarkedProcesses, killProcessGroup, RUN_MARKER_VARIABLE } from '../run/process-group.ts';
import type { ActiveNamespaces } from '../run/bwrap.ts';
import { rscriptCommand, spawnRscript, type RscriptChild } from '../run/spawn-rscript.ts';
import { createWorkdir, removeWorkdir, type WorkdirLayout } from '../run/workdir.ts';
import type { RuntimeSettings } from '../runtime-settings.ts';
import { WARM_LINES, warmRunnerArgs } from './warm-settings.ts';

export interface WarmSpawnSetup {
  readonly runtime: RuntimeSettings;
  readonly rlimits: ServiceConfig['rlimits'];
  readonly namespaces: ActiveNamespaces;
  readonly packages: readonly string[];
}

/** What the pool asks of a runner before it hands it a request. */
export type Readiness = 'ready' | 'dead' | 'stale' | 'unresponsive' | 'not-ready';

/** Stderr kept before the hand-over: only the runner's own lines come there. */
const CONTROL_KEEP_BYTES = 4096;

export class WarmRunner {
  readonly startedAt = Date.now();
  /** When the runner said it was ready (epoch ms). */
  readyAt: number | undefined;
  readonly pid: number | undefined;
  readonly marker: string;
  private handed = false;
  private exited = false;
  private control = '';
  private waiters: { line: string; resolve: (seen: boolean) => void }[] = [];

  private constructor(
    readonly layout: WorkdirLayout,
    readonly child: RscriptChild,
    readonly env: Record<string, string>,
  ) {
    this.pid = child.pid;
    this.marker = env[RUN_MARKER_VARIABLE]!;
    child.once('exit', () => this.ended());
    child.once('error', () => this.ended());
    child.stderr.on('data', (chunk: Buffer) => this.onControl(chunk));
    // A write to a runner that just died fails with EPIPE: it shows as a dead runner.
    child.stdin?.on('error', () => undefined);
    // A spawn failure rejects execa's promise: it shows as a dead runner, never as a throw.
    child.catch(() => undefined);
    this.ready = this.waitFor(WARM_LINES.ready).then((ok) => {
      if (ok) this.readyAt = Date.now();
      return ok;
    });
  }

  /** Settles when the runner said ready (true) or ended first (false). */
  readonly ready: Promise<boolean>;

  static async start(setup: WarmSpawnSetup): Promise<WarmRunner> {
    const layout = await createWorkdir(setup.runtime.tmpRoot);
    const command = rscriptCommand(setup.runtime, setup.rlimits, setup.namespaces, layout);
    command.args.push(...warmRunnerArgs(setup.packages));
    const env = buildChildEnv(layout, {
      path: process.env['PATH'],
      rLibs: setup.runtime.rLibs,
      runMarker: randomBytes(12).toString('hex'),
      capsule: setup.runtime.containment.capsule,
    });
    return new WarmRunner(layout, spawnRscript(command, layout, env, undefined), env);
  }

  private onControl(chunk: Buffer): void {
    if (this.handed) return;
    this.control = (this.control + chunk.toString('utf8')).slice(-CONTROL_KEEP_BYTES);
    for (const waiter of [...this.waiters]) {
      if (this.control.includes(`${waiter.line}\n`)) {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        waiter.resolve(true);
      }
    }
  }

  private ended(): void {
    this.exited = true;
    for (const waiter of this.waiters) waiter.resolve(false);
    this.waiters = [];
  }

  /** Resolves true once `line` has been seen on the control channel, false when the runner ended first. */
  private waitFor(line: string, timeoutMs?: number): Promise<boolean> {
    if (this.control.includes(`${line}\n`)) return Promise.resolve(true);
    if (this.exited) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const waiter = { line, resolve };
      this.waiters.push(waiter);
      if (timeoutMs !== undefined) {
        setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(false);
        }, timeoutMs).unref();
      }
    });
  }

  get alive(): boolean {
    return !this.exited && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Alive, ready, young enough and answering a ping within `readyMs`. */
  async readiness(maxAgeMs: number, readyMs: number, now: number = Date.now()): Promise<Readiness> {
    if (!this.alive) return 'dead';
    if (this.readyAt === undefined) return 'not-ready';
    if (now - this.startedAt > maxAgeMs) return 'stale';
    // Only pongs after this ping count.
    this.control = '';
    if (!this.write(`${WARM_LINES.ping}\n`)) return 'dead';
    return (await this.waitFor(WARM_LINES.pong, readyMs)) ? 'ready' : this.alive ? 'unresponsive' : 'dead';
  }

  /** Hands the runner its one request (the inputs are in its workdir) and closes the pipe. */
  hand(nonce: string): RscriptChild {
    this.handed = true;
    this.write(`run ${nonce} ${this.layout.root}\n`);
    this.child.stdin?.end();
    return this.child;
  }

  private write(line: string): boolean {
    const stdin = this.child.stdin;
    if (!stdin || stdin.destroyed || !stdin.writable) return false;
    stdin.write(line);
    return true;
  }

  /** Ends the runner (its group, and anything carrying its marker) and removes its workdir. */
  async discard(): Promise<void> {
    this.handed = true;
    this.child.stdin?.destroy();
    if (this.pid !== undefined) await killProcessGroup(this.pid, 0);
    await killMarkedProcesses(this.marker);
    this.child.stdout.destroy();
    this.child.stderr.destroy();
    await removeWorkdir(this.layout, Date.now() + 5_000);
  }
}
