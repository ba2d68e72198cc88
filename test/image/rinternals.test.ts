/**
 * The capsule's patch of R's tables (r-image/capsule/rinternals.c) against the image's own R
 * (Debian's, a newer release than a development host's): an escaped script in the Lambda posture
 * (kernel layers off, JUBE_R_TEST_ESCAPED_RUNNER) meets the removed bytecode builders and address
 * leaks and the fenced deserializers, while every package still loads from the image's library.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ExecuteResponseSchema, type ExecuteResponse } from '../../layers/contract/execute.ts';
import { loadManifest } from '../../layers/packages/manifest.ts';
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

const PROBE = String.raw`probe <- function(label, expr) cat("@@probe ", label, "\t", tryCatch({ value <- expr; paste("ok:", paste(format(value), collapse = " ")) }, error = function(e) paste("refused:", conditionMessage(e))), "\n", sep = "")`;

describe('image, escaped script, capsule alone (the Lambda posture)', () => {
  it('refuses mkCode, inspect, address, tracemem and deserializing the workdir; every package loads', async () => {
    runtime = await startContainerRuntime({ image: IMAGE, env: { JUBE_R_TEST_ESCAPED_RUNNER: 'true', JUBE_R_CAPSULE_KERNEL: 'off' } });
    const script = [
      PROBE,
      'saveRDS(function() "ran", "f.rds"); x <- 1; save(x, file = "x.rda")',
      'probe("mkCode", typeof(.Internal(mkCode(c(12L, 1L), list(NULL)))))',
      'probe("inspect", .Internal(inspect(1)))',
      'probe("address", .Internal(address(1)))',
      'probe("tracemem", tracemem(c(1, 2)))',
      'probe("readRDS", readRDS("f.rds")())',
      'probe("read_rds", readr::read_rds(file.path(getwd(), "f.rds"))())',
      'probe("unserialize", unserialize(serialize(1, NULL)))',
      'probe("load", load("x.rda"))',
      'probe("jit", compiler::enableJIT(-1L))',
      ...loadManifest().declared.map((p) => `probe("library-${p}", suppressPackageStartupMessages(library("${p}", character.only = TRUE))[[1]])`),
      'probe("dplyr", nrow(dplyr::filter(mtcars, cyl == 4)))',
    ].join('\n');
    const response = answered(await runtime.invoke({ script, timeoutSeconds: 60 }, { requestId: randomUUID(), timeoutMs: 90_000 }));
    const probes = Object.fromEntries(
      response.consoleOutput
        .split('\n')
        .filter((l) => l.startsWith('@@probe '))
        .map((l) => l.slice('@@probe '.length).split('\t') as [string, string]),
    );
    for (const name of ['mkCode', 'inspect', 'address', 'tracemem']) {
      expect(probes[name], name).toBe(`refused: jube-r: ${name} is not available in this sandbox`);
    }
    for (const label of ['readRDS', 'read_rds', 'unserialize', 'load']) {
      expect(probes[label], label).toMatch(/^refused: jube-r: \w+ reads only files of R's installed libraries in this sandbox/);
    }
    expect(probes['jit']).toBe('ok: 0');
    for (const p of loadManifest().declared) expect(probes[`library-${p}`], p).toMatch(/^ok: /);
    expect(probes['dplyr']).toBe('ok: 11');
  });
});
