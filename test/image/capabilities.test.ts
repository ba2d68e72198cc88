/**
 * The capability table below R (r-image/capsule: dispatch.c, routines.c, relro.c, paths.c) against
 * the image's own R (Debian's, a newer release than a development host's, whose context layout the
 * capsule checks at arming): an escaped script in the Lambda posture (kernel layers off,
 * JUBE_R_TEST_ESCAPED_RUNNER) meets each capability refusal with its category's message, the removed
 * bytecode builders and address leaks, the fenced deserializers, the closed native-code and memory
 * features; and every package still loads and computes from the image's library.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ExecuteResponseSchema, type ExecuteResponse } from '../../layers/contract/execute.ts';
import { loadManifest } from '../../layers/packages/manifest.ts';
import { capabilityMessage } from '../../layers/rules/capabilities.ts';
import { startContainerRuntime, type ContainerRuntime } from '../../functions/tools/local/container-runtime.ts';
import type { InvokeAnswer } from '../../functions/tools/local/runtime.ts';
import { buildImage, IMAGE } from './image-harness.ts';

let runtime: ContainerRuntime | undefined;

beforeAll(async () => {
  await buildImage();
});

afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

function answered(outcome: InvokeAnswer): ExecuteResponse {
  if (!outcome.ok) throw new Error(`function error ${outcome.errorType}: ${outcome.errorMessage}`);
  return ExecuteResponseSchema.parse(outcome.payload);
}

const PROBE = String.raw`probe <- function(label, expr) cat("@@probe ", label, "\t", gsub("\n", " ", tryCatch({ value <- expr; paste("ok:", paste(format(value), collapse = " ")) }, error = function(e) paste("refused:", conditionMessage(e)))), "\n", sep = "")`;
const escaped = (label: string) => new RegExp(`^refused: jube-r: ${label}`);

describe('image, escaped script, capsule alone (the Lambda posture)', () => {
  it('refuses each capability with its message, the memory features and deserializing the workdir; every package loads', async () => {
    runtime = await startContainerRuntime({ image: IMAGE, env: { JUBE_R_TEST_ESCAPED_RUNNER: 'true', JUBE_R_CAPSULE_KERNEL: 'off' } });
    const script = [
      PROBE,
      'saveRDS(function() "ran", "f.rds"); x <- 1; save(x, file = "x.rda")',
      'probe("system", get(paste0("sys", "tem"))("id", intern = TRUE))',
      'probe("pipe", readLines(pipe("id")))',
      'probe("url", readLines(url("http://127.0.0.1:9/")))',
      'probe("setenv", Sys.setenv(JUBE_R_X = "1"))',
      'probe("dyn.load", dyn.load(Sys.glob("/usr/lib/*/libblas.so.3")[[1]]))',
      'probe("dotCall", .Call(stats:::C_cor, c(1, 2, 3), c(1, 2, 4), 1L, FALSE))',
      'probe("maps", length(readLines("/proc/self/maps")))',
      'probe("mkCode", typeof(.Internal(mkCode(c(12L, 1L), list(NULL)))))',
      'probe("inspect", .Internal(inspect(1)))',
      'probe("address", .Internal(address(1)))',
      // The opaque token: equal for one object, unequal for two (the host tier shows it is not the address).
      'probe("dt-address", { v <- 1:3; w <- 4:6; identical(data.table::address(v), data.table::address(v)) && data.table::address(v) != data.table::address(w) })',
      'probe("readRDS", readRDS("f.rds")())',
      'probe("read_rds", readr::read_rds(file.path(getwd(), "f.rds"))())',
      'probe("unserialize", unserialize(serialize(1, NULL)))',
      'probe("load", load("x.rda"))',
      ...loadManifest().declared.map((p) => `probe("library-${p}", suppressPackageStartupMessages(library("${p}", character.only = TRUE))[[1]])`),
      'probe("dplyr", nrow(dplyr::filter(mtcars, cyl == 4)))',
      'probe("glm", round(coef(glm(am ~ wt, data = mtcars, family = binomial))[[2]], 2))',
      'probe("cor", round(cor(c(1, 2, 3), c(1, 2, 4)), 3))',
      // data.table's compiled code evaluates j (its own routine in it); the script's promise forced by stats is refused.
      'probe("dt-j", { DT <- data.table::as.data.table(mtcars); DT[, m := mean(mpg), by = cyl]; round(DT$m[1], 3) })',
      'probe("promise", stats::setNames(.Call(stats:::C_cor, c(1, 2, 3), c(1, 2, 4), 1L, FALSE), "r"))',
    ].join('\n');
    const response = answered(await runtime.invoke({ script, timeoutSeconds: 90 }, { requestId: randomUUID(), timeoutMs: 120_000 }));
    const probes = Object.fromEntries(
      response.consoleOutput
        .split('\n')
        .filter((l) => l.startsWith('@@probe '))
        .map((l) => l.slice('@@probe '.length).split('\t') as [string, string]),
    );
    expect(probes['system']).toBe(`refused: jube-r: ${capabilityMessage('program', 'system')}`);
    expect(probes['pipe']).toBe(`refused: jube-r: ${capabilityMessage('program', 'pipe')}`);
    expect(probes['url']).toBe(`refused: jube-r: ${capabilityMessage('network', 'url')}`);
    expect(probes['setenv']).toMatch(escaped('Sys.setenv changes the process\'s environment variables'));
    expect(probes['dyn.load']).toMatch(escaped('dyn.load loads or calls compiled code directly'));
    expect(probes['dotCall']).toMatch(escaped('routine cor of stats loads or calls compiled code directly'));
    expect(probes['maps']).toMatch(/^refused: cannot open/);
    for (const name of ['mkCode', 'inspect', 'address']) expect(probes[name], name).toMatch(escaped(`${name} builds bytecode, reveals an address`));
    expect(probes['dt-address']).toBe('ok: TRUE');
    for (const label of ['readRDS', 'read_rds', 'unserialize', 'load']) expect(probes[label], label).toMatch(/^refused: jube-r: \w+ deserializes R objects/);
    for (const p of loadManifest().declared) expect(probes[`library-${p}`], p).toMatch(/^ok: /);
    expect(probes['dplyr']).toBe('ok: 11');
    expect(probes['glm']).toBe('ok: -4.02');
    expect(probes['cor']).toBe('ok: 0.982');
    expect(probes['dt-j']).toBe('ok: 19.743');
    expect(probes['promise']).toMatch(escaped('routine cor of stats loads or calls compiled code directly'));
  });
});
