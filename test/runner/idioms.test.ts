/**
 * Names are advice (docs/script-rules.md): ordinary R that plain R runs and that uses no capability
 * is accepted by /validate and runs to the same output through the execute handler, indirection
 * included; and a capability is refused with its category's message however it is reached: flagged
 * by /validate when called directly, refused by the capsule at run time when reached by a name built
 * at run time, in both postures (the Lambda posture, capsule alone, and with the kernel layers).
 */
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { readContainment } from '../../functions/execute/run/containment.ts';
import { loadManifest } from '../../layers/packages/manifest.ts';
import { capabilityMessage } from '../../layers/rules/capabilities.ts';
import { loadRules } from '../../layers/rules/rules.ts';
import { manifestPackages } from '../../layers/validator/package-lists.ts';
import { loadValidator } from '../../layers/validator/validator.ts';
import { harness } from './helpers.ts';
import { generous } from '../load-tolerant.ts';

const validator = await loadValidator({ rules: loadRules(), ...manifestPackages(loadManifest()) });
const h = generous(harness({ validator }));

/** Each idiom prints one line; the expected line is what plain `Rscript --vanilla` prints (asserted too). */
const IDIOMS: ReadonlyArray<{ name: string; script: string }> = [
  { name: 'do.call', script: 'l <- list(data.frame(a = 1), data.frame(a = 2))\ncat(nrow(do.call(rbind, l)), do.call("sum", list(1, 2)), "\\n")' },
  { name: 'get and assign', script: 'name <- "x1"\nassign(name, 41)\ncat(get(name) + 1, exists("x1"), mget(c("name"))[[1]], "\\n")' },
  { name: 'local and <<-', script: 'counter <- 0\nbump <- function() counter <<- counter + 1\nfor (i in 1:3) bump()\ny <- local({ a <- 2; a * counter })\ncat(counter, y, "\\n")' },
  { name: 'eval(parse(text = ))', script: 'expr <- "1 + 2 * 3"\ncat(eval(parse(text = expr)), eval(quote(x * 2), list(x = 5)), "\\n")' },
  { name: 'match.fun and strings as functions', script: 'f <- match.fun("mean")\ncat(f(1:4), sapply(list(1:3), "sum"), Reduce("+", 1:4), unlist(Filter(function(v) v > 1, 1:3)), unlist(Map("*", 1:2, 3:4)), "\\n")' },
  { name: 'purrr::map_chr with a name', script: 'items <- list(list(url = "a"), list(url = "b"))\ncat(purrr::map_chr(items, "url"), purrr::map_dbl(list(1:2, 3:4), sum), "\\n")' },
  { name: 'parallel::mclapply runs serially', script: 'r <- parallel::mclapply(1:3, function(i) i^2)\ncat(unlist(r), "\\n")' },
  { name: 'environments', script: 'e <- new.env()\nassign("v", 3, envir = e)\nf <- function() parent.frame()\ncat(get("v", envir = e), environmentName(environment(sum)), identical(f(), globalenv()), exists("v", envir = e, inherits = FALSE), "\\n")' },
  { name: 'pkg:::internal', script: 'cat(class(stats:::print.lm), "\\n")' },
  { name: 'knitr::kable', script: 'cat(knitr::kable(data.frame(a = 1:2, b = c("x", "y")), format = "pipe"), sep = "\\n")' },
  { name: 'TTR', script: 'cat(round(tail(TTR::SMA(c(1, 2, 3, 4, 5, 6), n = 3), 1), 2), "\\n")' },
  { name: 'options and Sys.setenv of the time zone', script: 'old <- options(digits = 3)\nSys.setenv(TZ = "Europe/Paris")\ncat(format(pi), Sys.getenv("TZ"), "\\n")\noptions(old)' },
  // An S4 method whose formals differ from its generic's runs as an interpreted `.local` the
  // package's compiled method holds: it calls the package's routines as its own.
  { name: 'S4 methods with their own arguments (Matrix)', script: 'suppressMessages(library(Matrix))\nm <- Matrix(c(2, 1, 1, 3), 2, 2)\ns <- sparseMatrix(i = 1:3, j = 1:3, x = 1)\ncat(as.vector(crossprod(m)), colSums(s), isSymmetric(m), "\\n")' },
  // forecast's simulate.ets hands stats::ts() a .C() call, forced inside ts.
  { name: 'a routine call passed as another package\'s argument (forecast)', script: 'suppressMessages(library(forecast))\nset.seed(1)\ncat(length(simulate(ets(USAccDeaths), 12)), "\\n")' },
  { name: 'readRDS of an installed package file', script: 'p <- system.file("Meta", "package.rds", package = "stats")\ncat(class(readRDS(p)), "\\n")' },
];

describe('ordinary R runs as in plain R: accepted by /validate, same output through the handler', () => {
  it.each(IDIOMS)('$name', async ({ script }) => {
    // Prepare: what plain R prints.
    const plain = await execa('Rscript', ['--vanilla', '-e', script], { reject: false });
    expect(plain.exitCode, plain.stderr).toBe(0);
    // Act
    const verdict = validator(script);
    const response = await h.run(script, { timeoutSeconds: 30 });
    // Assess
    expect(verdict.errors).toEqual([]);
    expect(response.error).toBeNull();
    expect(response).toMatchObject({ status: 'ok', consoleOutput: plain.stdout.endsWith('\n') ? plain.stdout : `${plain.stdout}\n` });
  }, 60_000);
});

describe('a capability is refused with its category\'s message however it is reached', () => {
  const message = capabilityMessage('program', 'system');

  it('/validate flags a direct system("id") with the category\'s advice', () => {
    expect(validator('system("id")').errors).toEqual([expect.objectContaining({ code: 'CAPABILITY_NOT_AVAILABLE', symbol: 'system', message, line: 1, column: 1 })]);
  });

  it('mclapply(mc.cores = 2) always forks: /validate refuses it with the process advice, before anything runs', async () => {
    const script = 'r <- parallel::mclapply(1:3, function(i) i^2, mc.cores = 2)';
    expect(validator(script).errors).toEqual([
      expect.objectContaining({ code: 'CAPABILITY_NOT_AVAILABLE', symbol: 'mclapply', message: capabilityMessage('process', 'mclapply(mc.cores = 2)') }),
    ]);
    expect(await h.run(script)).toMatchObject({ status: 'rejected' });
  });

  it('a core count computed at run time is advice at /validate; the refused fork\'s error carries the same advice', async () => {
    const script = 'cores <- 2\nr <- parallel::mclapply(1:3, function(i) i^2, mc.cores = cores)';
    const verdict = validator(script);
    expect(verdict.valid).toBe(true);
    expect(verdict.lint).toEqual([expect.objectContaining({ rule: 'capability-advice', message: expect.stringMatching(/mc\.cores must be 1/) })]);
    const response = await h.run(script);
    expect(response).toMatchObject({ status: 'error', errorType: 'execution' });
    expect(response.errorDetails?.hints).toEqual([capabilityMessage('process', 'mcfork')]);
  });

  it.each([
    { posture: 'capsule alone (the Lambda posture)', kernel: 'off' as const },
    { posture: 'capsule with Landlock and seccomp', kernel: 'auto' as const },
  ])('get("system")("id") passes /validate and the capsule refuses it with the same message: $posture', async ({ kernel }) => {
    const capsule = readContainment().capsule!;
    const posture = generous(harness({ validator, namespaces: 'none', containment: { capsule: { ...capsule, kernel } } }));
    const script = 'cat("before\\n")\nget("system")("id")';
    expect(validator(script).valid).toBe(true);
    const response = await posture.run(script);
    expect(response).toMatchObject({ status: 'error', errorType: 'execution', consoleOutput: 'before\n' });
    expect(response.error).toContain(`jube-r: ${message}`);
    expect(response.consoleOutput).not.toMatch(/uid=/);
    expect(posture.reports.at(-1)!.capsule).toMatch(kernel === 'off' ? / landlock=off seccomp=off dispatch=patched\(/ : / landlock=abi\d+ seccomp=active dispatch=patched\(/);
  });
});
