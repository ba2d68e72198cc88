/**
 * An Rscript killed from outside mid-run (another process, or the kernel's OOM killer as it does
 * it: a signal to R alone) with real R: the response names the signal, blames the service
 * (`interpreter`, not retryable) and nothing of the run is left running.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { groupMembers, processTable } from '../../functions/execute/run/process-group.ts';
import { readRuntimeSettings } from '../../functions/execute/runtime-settings.ts';
import { harness } from './helpers.ts';

const h = harness();
const RUNNER = readRuntimeSettings().runnerScript;

/** The R process this test process spawned for the run under way: its pid and its workdir (last argument). */
async function runningR(until: number): Promise<{ pid: number; workdir: string }> {
  while (Date.now() < until) {
    for (const { pid, ppid } of await processTable()) {
      if (ppid !== process.pid) continue;
      const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0').filter(Boolean);
      // Rscript execs R, which names the runner as --file=.
      if (cmdline.includes(`--file=${RUNNER}`)) return { pid, workdir: cmdline.at(-1)! };
    }
    await sleep(25);
  }
  throw new Error('no R process of this test appeared');
}

describe('execute handler: R killed from outside', () => {
  it.each(['SIGKILL', 'SIGTERM'] as const)('reports %s as the signal that ended R, as the service\'s failure, and leaves nothing running', async (signal) => {
    // The script prints, says it got that far (a file in out/), then waits to be killed.
    const running = h.run('cat("before the kill\\n")\nwriteLines("ready", "out/started")\nSys.sleep(30)\ncat("never\\n")', { timeoutSeconds: 20 });
    const until = Date.now() + 20_000;
    const { pid, workdir } = await runningR(until);
    while (!existsSync(`${workdir}/out/started`) && Date.now() < until) await sleep(25);
    expect(existsSync(`${workdir}/out/started`)).toBe(true);
    process.kill(pid, signal);

    const response = await running;

    expect(response.status).toBe('error');
    expect(response.timedOut).toBe(false);
    expect(response).toMatchObject({ errorType: 'interpreter', retryable: false });
    expect(response.error).toMatch(new RegExp(`^R was ended by signal ${signal} before it wrote a result \\(not by the script's time limit`));
    // What R wrote before the kill is kept; nothing after it ran.
    expect(response.consoleOutput).toContain('before the kill');
    expect(response.consoleOutput).not.toContain('never');
    const report = h.reports.at(-1)!;
    expect(report.pid).toBe(pid);
    expect(report.group?.survivors).toEqual([]);
    expect(await groupMembers(pid)).toEqual([]);
    expect(existsSync(workdir)).toBe(false);
  });
});
