/**
 * What a run leaves behind is hostile input, with real R: the post-run work (envelope, plots,
 * out/, the workdir's removal) is bounded by the invocation's remaining time, so a script that
 * ends just inside its limit with the worst leftovers still gets its answer before the deadline;
 * and an envelope an escaped script forged can neither break the caps nor set what later
 * responses report.
 */
import { describe, expect, it } from 'vitest';
import { loadManifest } from '../../layers/packages/manifest.ts';
import { clearEnvironmentMark, environmentNeedsCleaning } from '../../functions/execute/post-run-budget.ts';
import { harness } from './helpers.ts';

/** A Lambda context whose invocation ends `ms` from now. */
const contextEnding = (ms: number) => {
  const deadline = Date.now() + ms;
  return { getRemainingTimeInMillis: () => deadline - Date.now(), awsRequestId: 'leftovers-test' };
};

describe('the post-run budget', () => {
  it('a script that ends 1 s before its limit, leaving 200,000 files and pages, gets a clean answer before the invocation\'s deadline', { timeout: 120_000 }, async () => {
    const h = harness();
    clearEnvironmentMark();
    const timeoutSeconds = 8;
    // The invocation may last the script's limit and the handler's safety margin (1.5 s) and 1.5 s more.
    const invocationMs = timeoutSeconds * 1000 + 3000;
    const script = [
      't0 <- proc.time()[["elapsed"]]',
      'invisible(file.create(file.path("out", sprintf("f%06d", 1:100000))))',
      'invisible(file.create(file.path(Sys.getenv("TMPDIR"), sprintf("t%06d", 1:100000))))',
      'for (i in 1:12) plot(1:i)',
      `Sys.sleep(max(0, ${timeoutSeconds - 1} - (proc.time()[["elapsed"]] - t0)))`,
      'cat("done\\n")',
    ].join('\n');
    const started = Date.now();
    const response = await h.run(script, { timeoutSeconds }, contextEnding(invocationMs));
    const tookMs = Date.now() - started;

    expect(tookMs).toBeLessThan(invocationMs);
    expect(response).toMatchObject({ status: 'ok', consoleOutput: 'done\n', timedOut: false, truncated: true });
    expect(response.files!.length).toBeLessThanOrEqual(100);
    expect(response.plots!.length).toBe(10);
    // Removing 200,000 files does not fit what was left of the invocation: the answer says so, and
    // the environment is marked for cleaning before its next run (and retired after this one).
    const note = response.notes!.find((n) => n.startsWith("the handler's post-run time budget ran out"));
    expect(note, JSON.stringify(response.notes)).toContain('removing the workdir');
    expect(environmentNeedsCleaning()).toMatch(/removing the workdir/);
    expect(h.reports.at(-1)!.retire).toMatch(/within the post-run budget/);
    clearEnvironmentMark();
  });

  it('an ordinary run finishes its post-run work and marks nothing', async () => {
    clearEnvironmentMark();
    const h = harness();
    const response = await h.run('writeLines("x", "out/a.txt")\nplot(1:3)', {}, contextEnding(20_000));
    expect(response.status).toBe('ok');
    expect(response.notes ?? []).toEqual([]);
    expect(environmentNeedsCleaning()).toBeUndefined();
    expect(h.reports.at(-1)!.retire).toBeUndefined();
  });
});

describe('an envelope an escaped script forged', () => {
  // The escaped runner: the script runs without the R layer, as one that escaped it would, and
  // finds the nonce in the runner's frames.
  const h = harness({ sandbox: 'none', containment: { testEscapedRunner: true, capsule: undefined } });
  const forge = (fields: string) => [
    'for (f in sys.frames()) if (exists("header", envir = f, inherits = FALSE)) h <- get("header", envir = f)',
    `e <- c(h, list(status = "ok", error = NULL, warnings = list(), timedOut = FALSE), ${fields})`,
    'e$rVersion <- "9.9.9"',
    'writeLines(jsonlite::toJSON(e, auto_unbox = TRUE, null = "null"), file.path(getwd(), "envelope.json"))',
    'quit(save = "no")',
  ].join('\n');

  it('is held to every cap: a 5 MB message, a 3 MB error detail and a 2 MB value come back capped, the response under 6 MB', async () => {
    const response = await h.run(forge([
      'list(messages = list(strrep("m", 5e6)))',
      'list(errorDetails = list(class = list("x"), message = strrep("e", 3e6), call = strrep("c", 1e5), traceback = lapply(1:100, function(i) list(call = strrep("t", 1e4)))))',
      'list(value = list(kind = "json", class = list("list"), json = as.list(rep(strrep("v", 1000), 2000))))',
      'list(notes = as.list(rep(strrep("n", 1e4), 100)))',
    ].join(', ')));
    expect(response.status).toBe('ok');
    expect(Buffer.byteLength(JSON.stringify(response))).toBeLessThan(1024 * 1024);
    expect(response.messages).toEqual([]);
    expect(response.errorDetails!.traceback.length).toBeLessThanOrEqual(10);
    expect(response.value).toBeUndefined();
    expect(response.notes!.length).toBeLessThanOrEqual(20);
    expect(response.truncated).toBe(true);
    // The forged version is not reported, here or later.
    expect(response.rVersion).toBe(loadManifest().rVersion);
  });

  it('sets nothing later responses report: the next call, which has no envelope of its own, reports the service\'s R version', async () => {
    await h.run(forge('list()'));
    const next = await h.run('quit(status = 3)');
    expect(next.status).toBe('error');
    expect(next.rVersion).toBe(loadManifest().rVersion);
    expect(next.rVersion).not.toBe('9.9.9');
  });

  it('nested past the reader\'s limit is refused whole, without a stack overflow in the handler', async () => {
    const response = await h.run([
      'for (f in sys.frames()) if (exists("header", envir = f, inherits = FALSE)) h <- get("header", envir = f)',
      'body <- sub("}$", "", as.character(jsonlite::toJSON(c(h, list(status = "ok", error = NULL, warnings = list(), timedOut = FALSE)), auto_unbox = TRUE, null = "null")))',
      'writeLines(paste0(body, \',"value":{"kind":"json","class":[],"json":\', strrep("[", 1e6), strrep("]", 1e6), "}}"), file.path(getwd(), "envelope.json"))',
      'quit(save = "no")',
    ].join('\n'));
    expect(response).toMatchObject({ status: 'error', errorType: 'interpreter' });
    expect(response.error).toMatch(/nests deeper than 64 levels/);
  });
});
