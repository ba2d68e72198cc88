/**
 * The image answers real invocations through its real entrypoint: the runtime interface client
 * polls the Runtime API emulator, the bundled execute handler runs R inside the container
 * (hardened flags, --network none; see functions/tools/local/container-runtime.ts for how the client
 * still reaches the emulator).
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecuteResponseSchema, type ExecuteEventInput } from '../../layers/contract/execute.ts';
import { startContainerRuntime, type ContainerRuntime } from '../../functions/tools/local/container-runtime.ts';
import { darkPixels, decoded } from '../runner/plot-pixels.ts';
import { buildImage, IMAGE } from './image-harness.ts';
import { GENEROUS_TIMEOUT_SECONDS } from '../load-tolerant.ts';

const FUNCTION_TIMEOUT_MS = 60_000;
let runtime: ContainerRuntime | undefined;
// A local data dir, mounted read-only at the same path and named the data root (JUBE_R_DATA_DIR),
// as the local stack does for `file` sources.
const dataDir = mkdtempSync(join(tmpdir(), 'jube-r-image-data-'));
const salesCsv = 'region,amount\nnorth,10\nsouth,32\n';

beforeAll(async () => {
  chmodSync(dataDir, 0o755);
  writeFileSync(join(dataDir, 'sales.csv'), salesCsv, { mode: 0o644 });
  await buildImage();
  runtime = await startContainerRuntime({
    image: IMAGE,
    readOnlyMounts: [dataDir],
    // The runtime injects canary credentials as Lambda would; the R child must never see any of them.
    env: { JUBE_R_DATA_DIR: dataDir },
  });
});

afterAll(async () => {
  await runtime?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const invoke = async (event: ExecuteEventInput, timeoutMs = FUNCTION_TIMEOUT_MS) => {
  if (!runtime) throw new Error('container runtime did not start');
  return runtime.invoke(event, { requestId: randomUUID(), timeoutMs });
};

const responseOf = async (event: ExecuteEventInput) => {
  const outcome = await invoke(event);
  if (!outcome.ok) throw new Error(`function error ${outcome.errorType}: ${outcome.errorMessage}\n${await runtime?.logs()}`);
  return ExecuteResponseSchema.parse(outcome.payload);
};

describe('an invocation through the image entrypoint', () => {
  it('runs an ok script with a package and returns its output and structured result', async () => {
    // Act
    const response = await responseOf({
      script: [
        'suppressPackageStartupMessages(library(dplyr))',
        'd <- tibble(x = c(1, 2, 3)) %>% summarise(total = sum(x))',
        'cat("total:", d$total, "\\n")',
        'cat("<<<JUBE_RESULT_START>>>", jsonlite::toJSON(list(total = d$total), auto_unbox = TRUE), "<<<JUBE_RESULT_END>>>", sep = "")',
      ].join('\n'),
      timeoutSeconds: 30,
    });

    // Assess
    expect(response.status).toBe('ok');
    expect(response.consoleOutput).toContain('total: 6');
    expect(response.result).toEqual({ total: 6 });
    expect(response.rVersion).toMatch(/^4\.5\./);
    expect(response.timedOut).toBe(false);
  });

  it('binds a dataframe from a local file source', async () => {
    const response = await responseOf({
      script: 'cat(nrow(sales), sum(sales$amount))',
      timeoutSeconds: 30,
      dataframes: [
        { name: 'sales', source: { kind: 'file', path: join(dataDir, 'sales.csv'), gzip: false }, bytes: salesCsv.length },
      ],
    });

    expect(response.status).toBe('ok');
    expect(response.consoleOutput).toContain('2 42');
  });

  it('refuses a file source outside the data root, by its code, without a byte of it', async () => {
    const response = await responseOf({
      script: 'cat(nrow(t))',
      timeoutSeconds: 30,
      dataframes: [{ name: 't', source: { kind: 'file', path: '/proc/1/environ', gzip: false }, bytes: 10 }],
    });

    expect(response.status).toBe('error');
    expect(response.error).toMatch(/^dataframe 't' was refused \(data-source-file-outside-root\)/);
    expect(JSON.stringify(response)).not.toMatch(/AWS_|LAMBDA|PATH=/);
  });

  it('reports an R error as status error with its message', async () => {
    const response = await responseOf({ script: 'x <- 1\nstop("boom from the image")', timeoutSeconds: 30 });

    expect(response.status).toBe('error');
    expect(response.error).toContain('boom from the image');
    expect(response.timedOut).toBe(false);
  });

  it('rejects a forbidden script without running it', async () => {
    const response = await responseOf({ script: 'system("id")', timeoutSeconds: 30 });

    expect(response.status).toBe('rejected');
    expect(response.consoleOutput).not.toMatch(/uid=/);
  });

  it("stops a runaway script at the call's timeout and says so", async () => {
    const response = await responseOf({ script: 'repeat { x <- 1 }', timeoutSeconds: 1 });

    expect(response.status).toBe('error');
    expect(response.timedOut).toBe(true);
    // The script never ends by itself: its answer is the kill at its 1 s limit, as the error says.
    expect(response.error).toContain('1 s');
  });

  it("answers within the invocation's deadline when the function timeout is shorter than the script's", async () => {
    // Act: a 30 s runaway against a 15 s function timeout (the deadline header says so; the handler's
    // safety margin before it leaves a loaded machine room to kill and answer).
    const outcome = await invoke({ script: 'repeat { x <- 1 }', timeoutSeconds: 30 }, 15_000);
    const next = await responseOf({ script: 'cat(1 + 1)', timeoutSeconds: GENEROUS_TIMEOUT_SECONDS });

    // Assess: an explained timeout from the handler, not the emulator's Sandbox.Timedout (which
    // fires at the deadline), and the environment still serves the next call.
    expect(outcome.ok).toBe(true);
    const response = ExecuteResponseSchema.parse(outcome.ok ? outcome.payload : undefined);
    expect(response).toMatchObject({ status: 'error', timedOut: true });
    expect(next.status).toBe('ok');
    expect(next.consoleOutput).toContain('2');
  });
});

describe('what a run returns, inside the image', () => {
  const small = { width: 400, height: 300, dpi: 96 };

  it('a ggplot and a base plot come back as PNGs of the requested size with their titles rendered (the image\'s fonts)', async () => {
    const [gg, ggPlain, base, basePlain] = await Promise.all([
      responseOf({ script: 'library(ggplot2)\nggplot(mtcars, aes(wt, mpg)) + geom_point() + ggtitle("Weight and mileage")', timeoutSeconds: 30, plots: small }),
      responseOf({ script: 'library(ggplot2)\nggplot(mtcars, aes(wt, mpg)) + geom_point()', timeoutSeconds: 30, plots: small }),
      responseOf({ script: 'plot(1:10, main = "Sales by month")', timeoutSeconds: 30, plots: small }),
      responseOf({ script: 'plot(1:10)', timeoutSeconds: 30, plots: small }),
    ]);
    for (const response of [gg, ggPlain, base, basePlain]) {
      expect(response.status, JSON.stringify(response.error)).toBe('ok');
      expect(response.plots).toHaveLength(1);
      const png = decoded(response.plots?.[0]);
      expect([png.width, png.height]).toEqual([400, 300]);
      expect(darkPixels(png, 0.12, 1)).toBeGreaterThan(300);
    }
    expect(darkPixels(decoded(gg.plots?.[0]), 0, 0.07)).toBeGreaterThan(4 * darkPixels(decoded(ggPlain.plots?.[0]), 0, 0.07) + 40);
    expect(darkPixels(decoded(base.plots?.[0]), 0, 0.12)).toBeGreaterThan(40);
    expect(darkPixels(decoded(basePlain.plots?.[0]), 0, 0.12)).toBe(0);
  });

  it('three pages give three plots; plots: false gives none', async () => {
    const script = 'plot(1:3)\nhist(c(1, 2, 2, 3))\ngrid::grid.newpage()\ngrid::grid.text("third page")';
    expect((await responseOf({ script, timeoutSeconds: 30, plots: small })).plots).toHaveLength(3);
    expect((await responseOf({ script, timeoutSeconds: 30, plots: false })).plots).toEqual([]);
  });

  it('returns out/ files, and for an error in the fifth expression its call and line', async () => {
    const response = await responseOf({
      script: 'writeLines("a,b", "out/t.csv")\nx <- 1\ny <- 2\nf <- function(v) log(v)\nz <- f("a")',
      timeoutSeconds: 30,
    });
    expect(response).toMatchObject({
      status: 'error', errorType: 'execution',
      errorDetails: { call: 'log(v)', line: 5, column: 6, expressionLine: 5, expressionColumn: 1, traceback: [{ call: 'f("a")', line: 5, column: 1 }] },
    });
    expect(response.files?.map((file) => [file.name, Buffer.from(file.data ?? '', 'base64').toString()])).toEqual([['t.csv', 'a,b\n']]);
  });
});
