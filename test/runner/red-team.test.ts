/**
 * The routes of the earlier red-team passes (docs/threat-model.md), replayed against the layout
 * where names are advice. Each route reaches a real function by a string or a package's own frame,
 * which no static check sees: the validator accepts it, R runs it, and the call reaches R's
 * dispatch table or libc, where the capsule refuses the capability with its category's message.
 * No command runs. Ordinary code along the same routes (a string naming a function that only
 * computes) runs as in plain R.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { capabilityMessage } from '../../layers/rules/capabilities.ts';
import { loadManifest } from '../../layers/packages/manifest.ts';
import { loadRules } from '../../layers/rules/rules.ts';
import { manifestPackages } from '../../layers/validator/package-lists.ts';
import { loadValidator } from '../../layers/validator/validator.ts';
import { harness } from './helpers.ts';

const validator = await loadValidator({ rules: loadRules(), ...manifestPackages(loadManifest()) });
const h = harness({ validator });
// Where a successful attack would leave its mark: outside any workdir, so a leftover is visible.
const marks = mkdtempSync(join(tmpdir(), 'jube-red-team-'));
afterAll(() => rmSync(marks, { recursive: true, force: true }));

const shell = (id: string): string => `echo pwned > ${join(marks, id)}`;
const program = (name: string): string => capabilityMessage('program', name);

// `.Internal(system(cmd, TRUE, 0))`, built without the name or the string.
const payload = (id: string): string =>
  [
    `q <- quote(I(s("${shell(id)}", TRUE, 0L)))`,
    'if (getRversion() >= "4.3.0") q[[2]][[5]] <- FALSE',
    'q[[1]] <- as.name(paste0(".Inter", "nal"))',
    'q[[2]][[1]] <- as.name(paste0("sys", "tem"))',
  ].join('\n');

describe('red team: every route of the earlier passes reaches the capsule, which refuses the capability', () => {
  it.each([
    // Strings resolved in a package's frame.
    { id: 'ave', route: (c: string) => `ave("${c}", 1, FUN = paste0("sys", "tem"))`, refusal: program('system') },
    { id: 'kronecker', route: (c: string) => `kronecker("sh", "-c '${c}'", FUN = paste0("sys", "tem2"))`, refusal: program('system') },
    { id: 'formula-paren', route: (c: string) => `model.frame(formula(paste0("~ (sys", "tem('${c}'))")), data.frame(a = 1))`, refusal: program('system') },
    { id: 'lm-string', route: (c: string) => `lm(paste0("y ~ sys", "tem('${c}')"), data = data.frame(y = 1:3))`, refusal: program('system') },
    // Base's restart code resolves a handler string with get() in base's frame: the real eval, in base.
    {
      id: 'with-restarts',
      route: (c: string) => `withRestarts(invokeRestart("r", call(paste0("sys", "tem"), "${c}")), r = list(handler = paste0("ev", "al")))`,
      refusal: program('system'),
    },
    // rlang's as_function() looked "dget" up from globalenv(); dget() evaluates a file the script wrote.
    {
      id: 'tidyr-dget',
      route: (c: string) =>
        `library(tidyr)\nwriteLines('system("${c}")', "f.R")\npivot_longer(data.frame(id = 1, v = "f.R"), v, values_transform = list(value = paste0("dg", "et")))`,
      refusal: program('system'),
    },
    // A graphics file name starting with '|' is a pipe to a shell.
    // R's device reports the refused popen() in its own words.
    { id: 'pdf-pipe', route: (c: string) => `pdf("|${c}; cat > /dev/null")\nplot(1)\ndev.off()`, refusal: "cannot open 'pdf' pipe" },
    // The root-cause routes: an evaluator reached through a package, in an environment the script chose.
    { id: 'exec-eval', route: () => `${payload('exec-eval')}\npurrr::exec(paste0("ev", "al"), q, .env = new.env())`, refusal: program('system') },
    { id: 'numericDeriv-rho', route: () => `${payload('numericDeriv-rho')}\nnumericDeriv(q, character(0), rho = .AutoloadEnv)`, refusal: program('system') },
    { id: 'map-lambda', route: () => `${payload('map-lambda')}\nf <- ~x\nf[[2]] <- q\npurrr::map(1, f)`, refusal: program('system') },
    { id: 'str-glue', route: () => `library(stringr)\nlapply(paste0("{sys", "tem('${shell('str-glue')}')}"), str_glue)`, refusal: program('system') },
  ])('$id: accepted (names are advice), refused at run time, no command runs', async ({ id, route, refusal }) => {
    // Prepare
    const source = route(shell(id));
    expect(validator(source).valid).toBe(true);
    // Act
    const response = await h.run(source, { timeoutSeconds: 30 });
    // Assess
    expect(response.status).toBe('error');
    expect(response.error).toContain(refusal);
    expect(existsSync(join(marks, id))).toBe(false);
  }, 60_000);

  it('e1071::tune(METHOD = "dyn.load") loads no file the script wrote', async () => {
    const source = [
      'writeBin(as.raw(c(0x7f, 0x45, 0x4c, 0x46)), "evil.so")',
      'e1071::tune(paste0("dyn.lo", "ad"), train.x = matrix(rep(normalizePath("evil.so"), 3)), train.y = 1:3,',
      '  tunecontrol = e1071::tune.control(sampling = "fix", fix = 1 / 3))',
    ].join('\n');
    expect(validator(source).valid).toBe(true);
    const response = await h.run(source);
    expect(response.status).toBe('error');
    expect(response.error).toContain(capabilityMessage('nativeCode', 'dyn.load'));
  });

  it('a leaked setTimeLimit lowers the limit but never lifts it', async () => {
    const response = await h.run('lift <- get(paste0("setTime", "Limit"))\nlift(cpu = Inf, elapsed = Inf)\nx <- 0\nrepeat x <- x + 1', { timeoutSeconds: 1 });
    expect(response.timedOut).toBe(true);
  });

  it('does not report a time-out the script raised itself', async () => {
    const response = await h.run('stop("reached elapsed time limit")');
    expect(response).toMatchObject({ status: 'error', timedOut: false, error: 'Error: reached elapsed time limit\nAt line 1: stop("reached elapsed time limit")' });
  });
});

describe('red team: the same routes with functions that only compute run as in plain R', () => {
  it('strings, restarts, environments, formulas, quosures and graphics files', async () => {
    const script = [
      'setClass("P", representation(x = "numeric")); p <- new("P", x = 3)',
      'fit <- lm("mpg ~ wt", data = mtcars)',
      'data(iris)',
      'ev <- withRestarts(invokeRestart("r", 2), r = list(handler = "sqrt"))',
      'e <- attr(terms(y ~ x), ".Environment"); ns <- loadNamespace("stats")',
      'pdf("plot.pdf"); plot(1); invisible(dev.off())',
      'cat(p@x, methods::slot(p, "x"), ave(c(1, 3), c(1, 1), FUN = "mean"), round(coef(fit)[[2]], 2), nrow(iris),',
      '  sapply(list(1:3), "sum"), round(ev, 3), is.environment(e), isNamespace(ns), file.size("plot.pdf") > 0, "\\n")',
    ].join('\n');
    expect(validator(script).valid).toBe(true);
    const response = await h.run(script);
    expect(response).toMatchObject({ status: 'ok', consoleOutput: '3 3 2 2 -5.34 150 6 1.414 TRUE TRUE TRUE \n' });
  });

  it('ggplot2, dplyr with quosures, tidyr, purrr, readr, data.table, ranger and formulas', async () => {
    const script = [
      ...['dplyr', 'tidyr', 'purrr', 'ggplot2', 'readr', 'data.table', 'ranger'].map((p) => `library(${p}, warn.conflicts = FALSE)`),
      'd <- data.frame(x = 1:6, y = c(2, 4, 6, 8, 10, 12), g = rep(c("a", "b"), 3))',
      'col <- "x"; q <- quo(x * 2); v <- sym(col)',
      'r <- d %>% mutate(z = !!q, w = !!v + 1) %>% group_by(g) %>% summarise(m = mean(z), across(c(x, y), mean))',
      'f <- function(df, var) df %>% filter({{ var }} > 3) %>% nrow()',
      'long <- pivot_longer(d, c(x, y))',
      'm <- map_dbl(1:3, ~ .x * 2) + map_dbl(1:3, function(i) i)',
      'write_csv(d, "d.csv"); back <- read_csv("d.csv", show_col_types = FALSE)',
      'dt <- as.data.table(d)[, .(s = sum(x)), by = g]',
      'fit <- lm(y ~ x, d); mf <- model.frame(y ~ x, d); fm <- formula(d[, c("y", "x")])',
      'p <- ggplot(d, aes(x, y, colour = g)) + geom_point() + geom_smooth(method = "lm", formula = y ~ x) + facet_wrap(~g)',
      'png("p.png"); print(p); invisible(dev.off())',
      'e <- new.env(); e$v <- 1; ok <- with(e, v) + length(lapply(1:2, new.env))',
      'cat(sum(r$m), f(d, x), nrow(long), m, nrow(back), dt$s, round(coef(fit)[[2]]), nrow(mf), deparse(fm), ok, file.size("p.png") > 0, "\\n")',
    ].join('\n');
    expect(validator(script).valid).toBe(true);
    const response = await h.run(script, { timeoutSeconds: 30 });
    expect(response).toMatchObject({ status: 'ok', consoleOutput: '14 3 12 3 6 9 6 9 12 2 6 y ~ x 3 TRUE \n' });
  }, 60_000);

  it('forecast evaluates a series name where plain R does: BoxCox\'s example runs', async () => {
    const script = [
      'library(forecast)',
      'lambda <- BoxCox.lambda(lynx)',
      'lynx.fit <- ar(BoxCox(lynx, lambda))',
      'fc <- forecast(lynx.fit, h = 20, lambda = lambda)',
      'cat(length(fc$mean), length(fitted(lynx.fit)), "\\n")',
    ].join('\n');
    expect(validator(script).valid).toBe(true);
    const response = await h.run(script, { timeoutSeconds: 30 });
    expect(response).toMatchObject({ status: 'ok', consoleOutput: '20 114 \n' });
  }, 60_000);
});
