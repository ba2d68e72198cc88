/**
 * What removing R's bytecode builders costs (docs/threat-model.md, "Below the mask"): the JIT
 * compiles through mkCode, so scripts run with R_ENABLE_JIT=0. Median in-R time of loop-heavy
 * code written in the script (the case the JIT speeds up) with the JIT at R's default level 3 and
 * off, in bare Rscript, interleaved; and of attaching four packages with the capsule armed and
 * not (every lazy-load fetch then checks its file). Package code is precompiled either way.
 */
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { median } from './median.ts';
import { samples } from './budget.ts';

const ROUNDS = Number(process.env['JUBE_R_BENCH_ROUNDS'] ?? samples(7, 3));
const CAPSULE = process.env['JUBE_R_CAPSULE_LIBRARY'] ?? fileURLToPath(new URL('../../build/capsule/jube_capsule.so', import.meta.url));

const LOOPS = String.raw`
f <- function(n) { s <- 0; for (i in seq_len(n)) { if (i %% 3 == 0) s <- s + i * 2 else s <- s - 1 }; s }
fib <- function(n) if (n < 2) n else fib(n - 1) + fib(n - 2)
cat(system.time({ f(2e6); fib(21) })[["elapsed"]] * 1000)`;

const ATTACH = String.raw`
invisible(dyn.load(Sys.getenv("JUBE_TEST_CAPSULE")))
if (Sys.getenv("ARM") == "1") invisible(.C("jube_capsule_arm", status = integer(1), report = strrep(" ", 255), PACKAGE = "jube_capsule"))
cat(system.time(for (p in c("dplyr", "ggplot2", "tidyr", "forecast")) suppressPackageStartupMessages(library(p, character.only = TRUE)))[["elapsed"]] * 1000)`;

async function rMs(code: string, env: Record<string, string>): Promise<number> {
  const result = await execa('Rscript', ['--vanilla', '-e', code], { env, reject: false });
  const ms = Number(String(result.stdout).trim().split('\n').at(-1));
  if (result.exitCode !== 0 || !Number.isFinite(ms)) throw new Error(`bench R failed: ${String(result.stderr)}`);
  return ms;
}

export async function run(): Promise<void> {
  const jit: Record<'on' | 'off', number[]> = { on: [], off: [] };
  const attach: Record<'armed' | 'unarmed', number[]> = { armed: [], unarmed: [] };
  const workdir = mkdtempSync(join(tmpdir(), 'jube-r-bench-jit-'));
  const capsuleEnv = { LD_PRELOAD: CAPSULE, JUBE_TEST_CAPSULE: CAPSULE, JUBE_R_CAPSULE_WORKDIR: workdir, JUBE_R_CAPSULE_KERNEL: 'off', R_ENABLE_JIT: '0' };
  try {
    for (let i = 0; i < ROUNDS; i += 1) {
      jit.on.push(await rMs(LOOPS, { R_ENABLE_JIT: '3' }));
      jit.off.push(await rMs(LOOPS, { R_ENABLE_JIT: '0' }));
      attach.unarmed.push(await rMs(ATTACH, { ...capsuleEnv, ARM: '0' }));
      attach.armed.push(await rMs(ATTACH, { ...capsuleEnv, ARM: '1' }));
    }
  } finally {
    rmSync(workdir, { recursive: true, force: true });
  }
  const on = median(jit.on);
  const off = median(jit.off);
  const unarmed = median(attach.unarmed);
  const armed = median(attach.armed);
  console.log(`loop-heavy script, JIT level 3   ${on.toFixed(0).padStart(7)} ms`);
  console.log(`loop-heavy script, JIT off       ${off.toFixed(0).padStart(7)} ms  (${(off / on).toFixed(2)}x)`);
  console.log(`attach 4 packages, unarmed       ${unarmed.toFixed(0).padStart(7)} ms`);
  console.log(`attach 4 packages, armed         ${armed.toFixed(0).padStart(7)} ms  (${(armed / unarmed).toFixed(2)}x)`);
}
