/**
 * What a run leaves behind is hostile input, with real R: the post-run work (envelope, plots,
 * out/, the workdir's removal) is bounded by the invocation's remaining time, so a script that
 * ends just inside its limit with the worst leftovers still gets its answer before the deadline;
 * and an envelope an escaped script forged can neither break the caps nor set what later
 * responses report.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bombPng } from '../unit/execute/png-build.ts';
import { loadManifest } from '../../layers/packages/manifest.ts';
import { clearEnvironmentMark, environmentNeedsCleaning } from '../../functions/execute/output/post-run-budget.ts';
import { harness } from './helpers.ts';
import { baselineMs, generous } from '../load-tolerant.ts';

/** A Lambda context whose invocation ends `ms` from now. */
const contextEnding = (ms: number) => {
  const deadline = Date.now() + ms;
  return { getRemainingTimeInMillis: () => deadline - Date.now(), awsRequestId: 'leftovers-test' };
};

/**
 * Leftovers: files in out/ and in the workdir's tmp/, and more pages than the cap. Creating files
 * through R's guarded file.create under the capsule costs about 0.1 ms each on this host, so the
 * runner tier uses thousands; test/unit/execute/bounded-remove.test.ts removes 100,000.
 */
const leftovers = (files: number) => [
  't0 <- proc.time()[["elapsed"]]',
  `invisible(file.create(file.path("out", sprintf("f%06d", 1:${files}))))`,
  `invisible(file.create(file.path("tmp", sprintf("t%06d", 1:${files}))))`,
  'for (i in 1:12) plot(1:i)',
];

describe('the post-run budget', () => {
  it('a script that ends about 1 s before its limit with leftovers gets a clean answer before the invocation\'s deadline', { timeout: 120_000 }, async () => {
    const h = harness();
    clearEnvironmentMark();
    // Room for a loaded host to make the leftovers well before the script's end.
    const timeoutSeconds = 20;
    // The invocation lasts the script's limit, the handler's safety margin (1.5 s) and 1 s more.
    const invocationMs = timeoutSeconds * 1000 + 2500;
    const started = Date.now();
    const script = [
      ...leftovers(3000),
      // endAt: 1 s before the limit, counted from the request (R's own limit starts later still).
      'Sys.sleep(max(0, endAt - as.numeric(Sys.time())))',
      'cat("done\\n")',
    ].join('\n');
    const endAt = (started + (timeoutSeconds - 1) * 1000) / 1000;
    const response = await h.run(script, { timeoutSeconds, variables: [{ name: 'endAt', value: endAt }] }, contextEnding(invocationMs));
    const tookMs = Date.now() - started;

    expect(tookMs).toBeLessThan(invocationMs);
    expect(response.error).toBeNull();
    expect(response).toMatchObject({ status: 'ok', consoleOutput: 'done\n', timedOut: false, truncated: true });
    expect(response.files!.length).toBe(100);
    expect(response.plots!.length).toBe(10);
    // Whatever the budget did not finish is said, and the environment marked for cleaning.
    const cut = response.notes!.some((n) => n.startsWith("the handler's post-run time budget ran out"));
    expect(environmentNeedsCleaning() !== undefined).toBe(cut);
    clearEnvironmentMark();
  });

  it('a budget that runs out mid-removal still answers at once with what was collected; the environment is marked for cleaning and retired', { timeout: 180_000 }, async () => {
    clearEnvironmentMark();
    const h = harness({ env: { JUBE_R_POST_RUN_MAX_MS: '100' } });
    const started = Date.now();
    // Generous: making 40,000 files takes seconds on a loaded host; the deadline is what is asserted.
    const response = await h.run([...leftovers(20_000), 'cat("done\\n")'].join('\n'), { timeoutSeconds: 90 }, contextEnding(120_000));
    const rEnded = h.reports.at(-1)!;
    expect(response).toMatchObject({ status: 'ok', consoleOutput: 'done\n' });
    const note = response.notes!.find((n) => n.startsWith("the handler's post-run time budget ran out"));
    expect(note, JSON.stringify(response.notes)).toContain('removing the workdir');
    expect(environmentNeedsCleaning()).toMatch(/removing the workdir/);
    expect(rEnded.retire).toMatch(/within the post-run budget/);
    expect(Date.now() - started).toBeLessThan(120_000);
    clearEnvironmentMark();
  });

  it('an ordinary run finishes its post-run work and marks nothing', async () => {
    clearEnvironmentMark();
    const h = generous(harness());
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
  const h = generous(harness({ namespaces: 'none', containment: { testEscapedRunner: true, capsule: undefined } }));
  // R's own exit runs the runner's exit finalizer, which writes the real envelope: a forgery is
  // read only when the script ends R without it, as a signal to itself does.
  const forge = (fields: string) => [
    'for (f in sys.frames()) if (exists("header", envir = f, inherits = FALSE)) h <- get("header", envir = f)',
    `e <- c(h, list(status = "ok", error = NULL, warnings = list(), timedOut = FALSE), ${fields})`,
    'e$rVersion <- "9.9.9"',
    'writeLines(jsonlite::toJSON(e, auto_unbox = TRUE, null = "null"), file.path(getwd(), "envelope.json"))',
    'tools::pskill(Sys.getpid(), tools::SIGKILL)',
  ].join('\n');

  it('is held to every cap: a 4 MB message, a 3 MB error detail and a 2 MB value come back capped, the response under 6 MB', async () => {
    const response = await h.run(forge([
      'list(messages = list(strrep("m", 4e6)))',
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
    const next = await h.run('tools::pskill(Sys.getpid(), tools::SIGKILL)');
    expect(next.status).toBe('error');
    expect(next.rVersion).toBe(loadManifest().rVersion);
    expect(next.rVersion).not.toBe('9.9.9');
  });

  it('a string past the schema\'s bound (a 5 MB message) is refused whole, as is nesting past the reader\'s limit', async () => {
    const response = await h.run(forge('list(messages = list(strrep("m", 5e6)))'));
    expect(response).toMatchObject({ status: 'error', errorType: 'interpreter' });
    expect(response.error).toMatch(/does not have the runner envelope shape/);
  });

  it('nested past the reader\'s limit is refused whole, without a stack overflow in the handler', async () => {
    const response = await h.run([
      'for (f in sys.frames()) if (exists("header", envir = f, inherits = FALSE)) h <- get("header", envir = f)',
      'body <- sub("}$", "", as.character(jsonlite::toJSON(c(h, list(status = "ok", error = NULL, warnings = list(), timedOut = FALSE)), auto_unbox = TRUE, null = "null")))',
      'writeLines(paste0(body, \',"value":{"kind":"json","class":[],"json":\', strrep("[", 1e6), strrep("]", 1e6), "}}"), file.path(getwd(), "envelope.json"))',
      'tools::pskill(Sys.getpid(), tools::SIGKILL)',
    ].join('\n'));
    expect(response).toMatchObject({ status: 'error', errorType: 'interpreter' });
    expect(response.error).toMatch(/nests deeper than 64 levels/);
  });
});

describe('plot pages that are attacks, recorded in an envelope an escaped script forged', () => {
  it('a 256 MiB PNG bomb and a 1 MB `<g<g<g...` SVG are answered fast; 10 ordinary runs after them succeed, the handler\'s RSS near where it was', { timeout: 180_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jube-r-attack-'));
    try {
      writeFileSync(join(dir, 'bomb.png'), await bombPng(8192, 8192, 256 << 20));
      writeFileSync(join(dir, 'g.svg'), '<g'.repeat(500_000));
      const escaped = generous(harness({ namespaces: 'none', containment: { testEscapedRunner: true, capsule: undefined } }));
      const ordinary = generous(harness());
      const plant = (file: string, page: string) => [
        `file.copy("${join(dir, file)}", file.path(getwd(), ".jube", "plots", "${page}"))`,
        'for (f in sys.frames()) if (exists("header", envir = f, inherits = FALSE)) h <- get("header", envir = f)',
        `pages <- list(list(name = "${page}", bytes = file.size(file.path(getwd(), ".jube", "plots", "${page}"))))`,
        'e <- c(h, list(status = "ok", error = NULL, warnings = list(), timedOut = FALSE, plotPages = pages))',
        'writeLines(jsonlite::toJSON(e, auto_unbox = TRUE, null = "null"), file.path(getwd(), "envelope.json"))',
        'tools::pskill(Sys.getpid(), tools::SIGKILL)',
      ].join('\n');
      await ordinary.run('x <- 1');
      const baseline = process.memoryUsage().rss;
      // "Fast" is relative to an ordinary run on this machine now: decoding the bomb would take many times that.
      const fast = Math.max(5_000, 4 * (await baselineMs(() => ordinary.run('plot(1:3)\nmean(1:10)'))));

      for (const [file, page, format] of [['bomb.png', 'd001-p00001.png', 'png'], ['g.svg', 'd001-p00001.svg', 'svg']] as const) {
        const started = Date.now();
        const response = await escaped.run(plant(file, page), { plots: { format } });
        expect(Date.now() - started).toBeLessThan(fast);
        expect(response.status).toBe('ok');
        // The bomb does not decode at the run's size (omitted); the SVG page has no complete element (blank).
        expect(response.plots).toEqual([]);
        if (format === 'png') expect(response.plotsOmitted).toBe(1);
        else expect(response.notes).toContain('1 blank page(s) (a device opened but never drawn on) were left out');
      }
      for (let i = 0; i < 10; i += 1) {
        const started = Date.now();
        const response = await ordinary.run('plot(1:3)\nmean(1:10)');
        expect(response).toMatchObject({ status: 'ok', plots: [{ mimeType: 'image/png' }] });
        expect(Date.now() - started).toBeLessThan(fast);
      }
      expect(process.memoryUsage().rss - baseline).toBeLessThan(100 << 20);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the runner's record of its pages", () => {
  it('a page file a script planted without drawing is not returned: the runner opened no device, so it recorded none', async () => {
    const h = generous(harness({ namespaces: 'none', containment: { testEscapedRunner: true, capsule: undefined } }));
    const response = await h.run([
      'png <- as.raw(c(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a))',
      'writeBin(c(png, as.raw(rep(0, 100))), file.path(getwd(), ".jube", "plots", "d001-p00001.png"))',
      'x <- 1',
    ].join('\n'), { plots: { format: 'png' } });
    expect(response).toMatchObject({ status: 'ok', plots: [], plotsOmitted: 0 });
    // The control: with a device opened by drawing, the runner records its page, and it comes back.
    const drawn = await h.run('plot(1:3)', { plots: { format: 'png' } });
    expect(drawn.plots).toHaveLength(1);
  });
});
