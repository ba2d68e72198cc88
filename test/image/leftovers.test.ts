/**
 * What a run leaves behind, in the image, through its real entrypoint (the runtime interface
 * client and the Runtime API emulator, the container's memory and /tmp as the function has them):
 * leftovers get a clean answer within the invocation's time, and the calls after them in the same
 * environment all succeed with ordinary latency.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecuteResponseSchema, type ExecuteEventInput } from '../../layers/contract/execute.ts';
import { startContainerRuntime, type ContainerRuntime } from '../../functions/tools/local/container-runtime.ts';
import { buildImage, IMAGE } from './image-harness.ts';
import { GENEROUS_TIMEOUT_SECONDS } from '../load-tolerant.ts';

let runtime: ContainerRuntime | undefined;

beforeAll(async () => {
  await buildImage();
  runtime = await startContainerRuntime({ image: IMAGE });
});

afterAll(async () => {
  await runtime?.close();
});

const responseOf = async (event: ExecuteEventInput, timeoutMs = 60_000) => {
  if (!runtime) throw new Error('container runtime did not start');
  const outcome = await runtime.invoke(event, { requestId: randomUUID(), timeoutMs });
  if (!outcome.ok) throw new Error(`function error ${outcome.errorType}: ${outcome.errorMessage}\n${await runtime.logs()}`);
  return ExecuteResponseSchema.parse(outcome.payload);
};

const leftovers = (files: number) => [
  `invisible(file.create(file.path("out", sprintf("f%06d", 1:${files}))))`,
  `invisible(file.create(file.path("tmp", sprintf("t%06d", 1:${files}))))`,
  'for (i in 1:12) plot(1:i)',
];

describe('leftovers, in the image', () => {
  it('a script that ends 1 s before its limit with leftovers answers before the invocation ends; 10 ordinary runs after it succeed', { timeout: 240_000 }, async () => {
    // Room for a loaded host to make the leftovers well before the script's end.
    const timeoutSeconds = 20;
    const started = Date.now();
    const endAt = (started + (timeoutSeconds - 1) * 1000) / 1000;
    const invocationMs = timeoutSeconds * 1000 + 2500;
    const response = await responseOf({
      script: [...leftovers(5000), 'Sys.sleep(max(0, endAt - as.numeric(Sys.time())))', 'cat("done\\n")'].join('\n'),
      timeoutSeconds,
      variables: [{ name: 'endAt', value: endAt }],
    }, invocationMs);
    expect(Date.now() - started).toBeLessThan(invocationMs + 1000);
    expect(response).toMatchObject({ status: 'ok', consoleOutput: 'done\n' });
    expect(response.files!.length).toBe(100);

    for (let i = 0; i < 10; i += 1) {
      const ordinary = await responseOf({ script: 'plot(1:3)\nwriteLines("x", "out/a.txt")\nmean(1:10)', timeoutSeconds: GENEROUS_TIMEOUT_SECONDS });
      expect(ordinary).toMatchObject({ status: 'ok', files: [{ name: 'a.txt' }], plots: [{ mimeType: 'image/png' }] });
    }
  });
});

describe('an envelope an escaped script forged, in the image', () => {
  let escaped: ContainerRuntime | undefined;
  afterAll(async () => {
    await escaped?.close();
  });

  it('cannot push a response past its caps or set the R version later callers see', { timeout: 240_000 }, async () => {
    escaped = await startContainerRuntime({ image: IMAGE, env: { JUBE_R_TEST_ESCAPED_RUNNER: 'true' } });
    const call = async (script: string) => {
      const outcome = await escaped!.invoke({ script, timeoutSeconds: 20 }, { requestId: randomUUID(), timeoutMs: 60_000 });
      if (!outcome.ok) throw new Error(`function error ${outcome.errorType}: ${outcome.errorMessage}\n${await escaped!.logs()}`);
      return ExecuteResponseSchema.parse(outcome.payload);
    };
    const forge = (fields: string) => [
      'for (f in sys.frames()) if (exists("header", envir = f, inherits = FALSE)) h <- get("header", envir = f)',
      // The runner's own capsule report, so the handler does not withhold the forged result as unarmed.
      'for (f in sys.frames()) if (exists("plot_capture", envir = f, inherits = FALSE)) s <- get("capsule", envir = f)',
      `e <- c(h, list(status = "ok", error = NULL, warnings = list(), timedOut = FALSE, capsule = s), ${fields})`,
      'e$rVersion <- "9.9.9"',
      'writeLines(jsonlite::toJSON(e, auto_unbox = TRUE, null = "null"), file.path(getwd(), "envelope.json"))',
      // R's own exit runs the runner's exit finalizer, which writes the real envelope: a forgery is
      // read only when the script ends R without it, as a signal to itself does.
      'tools::pskill(Sys.getpid(), tools::SIGKILL)',
    ].join('\n');

    const capped = await call(forge('list(messages = list(strrep("m", 4e6)), notes = as.list(rep(strrep("n", 1e4), 100)))'));
    expect(capped.status, JSON.stringify(capped.error)).toBe('ok');
    expect(capped.rVersion).toMatch(/^4\.5\./);
    expect(capped.messages).toEqual([]);
    expect(Buffer.byteLength(JSON.stringify(capped))).toBeLessThan(1024 * 1024);

    const refused = await call(forge('list(messages = list(strrep("m", 14e6)))'));
    expect(refused).toMatchObject({ status: 'error', errorType: 'interpreter' });
    expect(refused.rVersion).toMatch(/^4\.5\./);

    const next = await call('quit(status = 3)');
    expect(next.rVersion).toMatch(/^4\.5\./);
  });
});
