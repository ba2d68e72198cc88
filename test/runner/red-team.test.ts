/**
 * Regressions from the red-team pass, at run time (docs/script-rules.md, "Found by
 * red-teaming"). Every script here passes the static walk, or is run with a permissive TypeScript
 * validator so that the R runner alone decides; before the fixes each one ran a shell command,
 * handed the script an environment outside the mask, or misreported its own run.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadManifest } from '../../layers/packages/manifest.ts';
import { loadRules } from '../../layers/rules/rules.ts';
import { manifestPackages } from '../../layers/validator/package-lists.ts';
import { loadValidator } from '../../layers/validator/validator.ts';
import { acceptEverything, harness } from './helpers.ts';

const validator = await loadValidator({ rules: loadRules(), ...manifestPackages(loadManifest()) });
const h = harness({ validator });
const permissive = harness({ validator: acceptEverything });
// Where a successful attack would leave its mark: outside any workdir, so a leftover is visible.
const marks = mkdtempSync(join(tmpdir(), 'jube-red-team-'));
afterAll(() => rmSync(marks, { recursive: true, force: true }));

const shell = (id: string): string => `echo pwned > ${join(marks, id)}`;

describe('red team: strings resolved in package frames reach no real function', () => {
  it.each([
    { id: 'ave', script: (c: string) => `ave("${c}", 1, FUN = paste0("sys", "tem"))`, symbol: 'system' },
    { id: 'kronecker', script: (c: string) => `kronecker("sh", "-c '${c}'", FUN = paste0("sys", "tem2"))`, symbol: 'system2' },
    { id: 'formula-paren', script: (c: string) => `formula(paste0("(sys", "tem('${c}'))"))`, symbol: 'system' },
    { id: 'lm-string', script: (c: string) => `lm(paste0("y ~ sys", "tem('${c}')"), data = data.frame(y = 1:3))`, symbol: 'system' },
  ])('$id: the script errors and no command runs', async ({ id, script, symbol }) => {
    // Prepare
    const source = script(shell(id));
    expect(validator(source).valid).toBe(true);
    // Act
    const response = await h.run(source);
    // Assess
    expect(response.status).toBe('error');
    expect(response.error).toContain(`'${symbol}' is not available in jube-r`);
    expect(existsSync(join(marks, id))).toBe(false);
  });
});

describe('red team: rlang resolves no forbidden name from globalenv()', () => {
  it('tidyr values_transform = "dget" does not run a file the script wrote', async () => {
    // rlang::as_function("dget") looked dget up from globalenv(), past the mask; dget evaluated the
    // file in base's frame, where .Internal(system()) is in reach.
    const source = [
      'library(tidyr)',
      `writeLines(paste0(".Inter", "nal(sys", "tem('${shell('tidyr-dget')}', FALSE, 0L))"), "f.R")`,
      'pivot_longer(data.frame(id = 1, v = "f.R"), v, values_transform = list(value = paste0("dg", "et")))',
    ].join('\n');
    expect(validator(source).valid).toBe(true);
    const response = await h.run(source);
    expect(response.status).toBe('error');
    expect(response.error).toContain("'dget' is not available in jube-r");
    expect(existsSync(join(marks, 'tidyr-dget'))).toBe(false);
  });

  it('still accepts function names that are allowed', async () => {
    const response = await h.run('library(tidyr)\nr <- pivot_longer(data.frame(id = 1, v = 2), v, values_transform = list(value = "as.character"))\ncat(class(r$value), "\\n")');
    expect(response).toMatchObject({ status: 'ok', consoleOutput: 'character \n' });
  });
});

describe('red team: no native code from the workdir', () => {
  it('e1071::tune(METHOD = "dyn.load") cannot load a file the script wrote', async () => {
    // tune() calls do.call(METHOD) from e1071's frame, past the mask; with a real shared object
    // written by writeBin() its constructor ran a shell command. Any file shows the guard.
    const source = [
      'writeBin(as.raw(c(0x7f, 0x45, 0x4c, 0x46)), "evil.so")',
      'e1071::tune(paste0("dyn.lo", "ad"), train.x = matrix(rep(normalizePath("evil.so"), 3)), train.y = 1:3,',
      '  tunecontrol = e1071::tune.control(sampling = "fix", fix = 1 / 3))',
    ].join('\n');
    expect(validator(source).valid).toBe(true);
    const response = await h.run(source);
    expect(response.status).toBe('error');
    expect(response.error).toContain("dyn.load() of a file outside R's installed libraries is not available");
  });

  it('still loads packages with compiled code', async () => {
    const response = await h.run('library(data.table)\nlibrary(ranger)\ncat(nrow(data.table(a = 1:2)), "\\n")');
    expect(response).toMatchObject({ status: 'ok', consoleOutput: '2 \n' });
  });
});

describe('red team: graphics devices do not pipe to a shell', () => {
  it.each([
    { id: 'pdf', script: (c: string) => `pdf("|${c}; cat > /dev/null")\nplot(1)\ndev.off()` },
    { id: 'ggsave', script: (c: string) => `library(ggplot2)\np <- ggplot(data.frame(x = 1), aes(x, x)) + geom_point()\nggsave("|${c}; cat > /dev/null", p, device = "pdf")` },
  ])('$id with a "|command" file name is refused', async ({ id, script }) => {
    const source = script(shell(id));
    expect(validator(source).valid).toBe(true);
    const response = await h.run(source);
    expect(response.status).toBe('error');
    expect(response.error).toContain("a graphics file name starting with '|'");
    expect(existsSync(join(marks, id))).toBe(false);
  });

  it('still writes a PDF file', async () => {
    const response = await h.run('pdf("plot.pdf")\nplot(1)\ninvisible(dev.off())\ncat(file.size("plot.pdf") > 0, "\\n")');
    expect(response).toMatchObject({ status: 'ok', consoleOutput: 'TRUE \n' });
  });
});

describe('red team: environments outside the mask are not handed out', () => {
  it.each([
    { name: 'loadNamespace("base")', script: 'ns <- loadNamespace("base")\ncat(is.null(ns), "\\n")', output: 'TRUE \n' },
    { name: 'attributes() of a terms object', script: 'tt <- terms(y ~ x)\ncat(".Environment" %in% names(attributes(tt)), "\\n")', output: 'FALSE \n' },
  ])('$name returns no environment', async ({ script, output }) => {
    const response = await h.run(script);
    expect(response).toMatchObject({ status: 'ok', consoleOutput: output });
  });

  it.each([
    { name: "attr(, '.Environment') of a terms object", script: 'd <- data.frame(y = 1:3, x = 1:3)\ne <- attr(attr(model.frame("y ~ x", d), "terms"), ".Environment")', error: "attribute '.Environment' holds an environment" },
    { name: 'base::attr through ::', script: 'e <- base::attr(terms(y ~ x), ".Environment")', error: "attribute '.Environment' holds an environment" },
    // purrr's own attr_getter() reads with base's attr(); the runner answers it with one on its attr().
    { name: 'purrr::attr_getter(".Environment")', script: 'g <- purrr::attr_getter(".Environment")\ne <- g(y ~ x)', error: "attribute '.Environment' holds an environment" },
    { name: 'attr_getter given to pluck()', script: 'library(purrr)\ne <- pluck(list(terms(y ~ x)), 1, attr_getter(".Environment"))', error: "attribute '.Environment' holds an environment" },
    { name: 'attr_getter through match.fun()', script: 'g <- match.fun("attr_getter")(".Environment")\ne <- g(y ~ x)', error: "attribute '.Environment' holds an environment" },
    // getClass("environment")@prototype was one (getClass is forbidden now); any environment slot is refused.
    { name: 'an environment slot through @', script: 'setClass("H", representation(e = "environment"))\nh <- new("H", e = new.env())\nh@e', error: 'this slot holds an environment' },
    { name: 'an environment slot through methods::slot', script: 'setClass("H", representation(e = "environment"))\nh <- new("H", e = new.env())\nmethods::slot(h, "e")', error: "slot 'e' holds an environment" },
    { name: 'new("environment")', script: 'e <- methods::new("environment")', error: 'new() of an environment class is not available' },
    { name: 'data(lib.loc =) running R files of any directory', script: 'data("pw", package = "evil", lib.loc = "lib")', error: 'data(lib.loc = ...) is not available' },
    // ggplot2's quosure keeps its namespace when its expression is replaced; mutate() evaluated the script's call there.
    { name: 'a package-made quosure given the script\'s call', script: 'library(ggplot2)\nqq <- geom_bar()$stat$default_aes$x\nqq[[2]] <- quote(Sys.time())\ndplyr::mutate(data.frame(a = 1), b = !!qq)', error: 'changing a formula or quosure that package code made in its own environment is not available' },
    { name: 'a package-made quosure changed by [<-', script: 'library(ggplot2)\nqq <- geom_bar()$stat$default_aes$x\nqq[2] <- list(quote(Sys.time()))', error: 'changing a formula or quosure that package code made' },
  ])('$name is refused', async ({ script, error }) => {
    expect(validator(script).valid).toBe(true);
    const response = await h.run(script);
    expect(response.status).toBe('error');
    expect(response.error).toContain(error);
  });

  it.each([
    { script: 'e <- lubridate::`.__T__show:methods`', symbol: '.__T__show:methods' },
    { script: 'e <- `.__T__show:methods`', symbol: '.__T__show:methods' },
    { script: 'e <- lubridate::".__T__show:methods"', symbol: '.__T__show:methods' },
    { script: 'attach(list(c = function(...) NULL))', symbol: 'attach' },
  ])('the runner rejects $script (package metadata and attach)', async ({ script, symbol }) => {
    const response = await permissive.run(script);
    expect(response.status).toBe('rejected');
    expect(response.validation?.errors.map((e) => `${e.code}:${e.symbol ?? ''}`)).toContain(`FORBIDDEN_SYMBOL:${symbol}`);
  });
});

describe('red team: the runner keeps its own state', () => {
  it('does not report a time-out the script raised itself', async () => {
    const response = await h.run('stop("reached elapsed time limit")');
    expect(response).toMatchObject({ status: 'error', timedOut: false, error: 'Error: reached elapsed time limit\nAt line 1: stop("reached elapsed time limit")' });
  });

  it('keeps the time limit when a leaked lookup tries to lift it', async () => {
    // ave() resolves FUN in stats' frame; setTimeLimit is stubbed there too.
    const response = await h.run('ave(Inf, 1, FUN = paste0("setTime", "Limit"))');
    expect(response.status).toBe('error');
    expect(response.error).toContain("'setTimeLimit' is not available in jube-r");
  });

  it('still runs ordinary analysis code through the hardened functions', async () => {
    const script = [
      'setClass("P", representation(x = "numeric")); p <- new("P", x = 3)',
      'fit <- lm("mpg ~ wt", data = mtcars)',
      'data(iris)',
      'cat(p@x, methods::slot(p, "x"), attr(structure(1, u = "kg"), "u"), ave(c(1, 3), c(1, 1), FUN = "mean"), round(coef(fit)[[2]], 2), nrow(iris), sapply(list(1:3), "sum"), "\\n")',
    ].join('\n');
    const response = await h.run(script);
    expect(response).toMatchObject({ status: 'ok', consoleOutput: '3 3 kg 2 2 -5.34 150 6 \n' });
  });
});

/**
 * The R layer by root cause (docs/script-rules.md): the routes of the white-box pass, closed as classes. Every route needed an
 * environment whose parent chain skips the mask and a function that evaluates a call in it; the
 * call is built without a forbidden name or string. Each script passes the static walk; before
 * the fixes each ran the shell command (except `ggproto` and `map-lambda`, which show the guard
 * of their class on a value that had no evaluator yet). Now each errors with its guard's message,
 * or, where the fix makes the environment the script's own, with the mask's stub for the
 * evaluator it looks up there, and no command runs.
 */
describe('red team: the R layer by root cause', () => {
  // `.Internal(system(cmd, TRUE, 0))`, built without a forbidden symbol or string.
  const payload = (id: string): string =>
    [
      `q <- quote(I(s("${shell(id)}", TRUE, 0)))`,
      'q[[1]] <- as.name(paste0(".Inter", "nal"))',
      'q[[2]][[1]] <- as.name(paste0("sys", "tem"))',
      // rlang's exec() looks .fn up in .env and calls it there: eval(q) in env.
      'run_in <- function(env) purrr::exec(paste0("ev", "al"), q, .env = env)',
    ].join('\n');
  const stub = "'.Internal' is not available in jube-r";
  const evalStub = "'eval' is not available in jube-r";

  it.each([
    { id: 'autoload-env', route: 'numericDeriv(q, character(0), rho = .AutoloadEnv)', error: "'.AutoloadEnv' (base) is an environment" },
    { id: 'user-hooks-env', route: 'run_in(.userHooksEnv)', error: "'.userHooksEnv' (base) is an environment" },
    { id: 'lapply-new-env', route: 'run_in(lapply(1, new.env)[[1]])', error: evalStub },
    { id: 'lapply-new-env-string', route: 'run_in(lapply(TRUE, "new.env")[[1]])', error: evalStub },
    { id: 'tryCatch-new-env', route: 'run_in(tryCatch(stop(TRUE), error = new.env))', error: evalStub },
    { id: 'lapply-formula', route: 'f <- lapply(list(data.frame(a = 1)), formula)[[1]]\nf[[2]] <- q\nmodel.frame(f)', error: `${stub}, not even inside a formula` },
    { id: 'lapply-tilde', route: 'f <- lapply(list(1), `~`)[[1]]\nf[[1]] <- as.name("~")\nf[[2]] <- q\nlm(f, data = data.frame(a = 1))', error: `${stub}, not even inside a formula` },
    { id: 'ggplot-plot-env', route: 'run_in(lapply(list(data.frame(a = 1)), ggplot2::ggplot)[[1]]$plot_env)', error: evalStub },
    { id: 'scales-r6', route: 'library(scales)\nrun_in(ContinuousRange)', error: "'ContinuousRange' (package:scales) is an environment" },
    // A listed ggproto object is handed out as it is: an environment with no parent, which the guards still refuse to evaluate in.
    { id: 'ggproto', route: 'library(ggplot2)\nrun_in(GeomPoint)', error: 'exec(.env = ): an environment outside' },
    { id: 'ggproto-super', route: 'library(ggplot2)\nrun_in(CoordCartesian$super())', error: 'exec(.env = ): an environment outside' },
    { id: 'ggproto-lm', route: 'library(ggplot2)\nm <- lm(mpg ~ wt, data = GeomPoint)', error: 'model.frame(data = ): an environment outside' },
    { id: 'ggproto-rho', route: 'library(ggplot2)\nnumericDeriv(q, character(0), rho = CoordCartesian)', error: 'numericDeriv(rho = ): an environment outside' },
    { id: 'getElement-xData', route: 'A <- setClass("A", contains = "environment")\nrun_in(getElement(A(), ".xData"))', error: 'new() of an environment class is not available' },
    { id: 'exec-eval', route: 'e <- lapply(1, new.env)[[1]]\npurrr::exec(paste0("ev", "al"), q, .env = e)', error: evalStub },
    { id: 'numericDeriv-rho', route: 'numericDeriv(q, character(0), rho = lapply(1, new.env)[[1]])', error: `${stub}, not even inside an expression given to numericDeriv()` },
    { id: 'str-glue-lapply', route: 'library(stringr)\nlapply(paste0("{.Inter", "nal(sys", "tem(\'x\', TRUE, 0))}"), str_glue)', error: stub },
    { id: 'quo-handler', route: 'library(dplyr)\nqq <- tryCatch(stop("x"), error = quo)', error: 'the value of quo(): an environment outside' },
    {
      id: 'attr-quosure',
      route: [
        'library(dplyr)',
        'qq <- quo(x)',
        'qq[[2]] <- q',
        'attr(qq, ".Environment") <- lapply(1, new.env)[[1]]',
        // dplyr wraps the error; the script re-raises it with its cause, as a user would see it.
        'tryCatch(mutate(data.frame(a = 1), b = !!qq), error = function(e) stop(conditionMessage(e), call. = FALSE))',
      ].join('\n'),
      error: stub,
    },
    { id: 'formula-call', route: 'formula(q)', error: 'formula() of a call other than `~` is not available' },
    { id: 'formula-list', route: 'formula(list(formula = q))', error: 'formula() of a call other than `~` is not available' },
    {
      id: 'globalenv-formula-case-when',
      route: 'library(dplyr)\nf <- asOneSidedFormula(quote(~x))\nf[[3]] <- TRUE\nf[[2]] <- q\ncase_when(f)',
      error: `${stub}, not even inside an expression given to tidy evaluation`,
    },
    { id: 'map-lambda', route: 'f <- ~x\nf[[2]] <- q\npurrr::map(1, f)', error: `${stub}, not even inside a lambda formula` },
  ])('$id: the script errors with the guard\'s message and no command runs', async ({ id, route, error }) => {
    // Prepare
    const source = `${payload(id)}\n${route}`;
    expect(validator(source).valid).toBe(true);
    // Act
    const response = await h.run(source);
    // Assess
    expect(response.status).toBe('error');
    expect(response.error).toContain(error);
    expect(existsSync(join(marks, id))).toBe(false);
  });

  it('as.function.default (a function made of a call, in any frame) is forbidden by name', async () => {
    const response = await permissive.run('f <- as.function.default(list(quote(1)))');
    expect(response.status).toBe('rejected');
    expect(response.validation?.errors.map((e) => e.symbol)).toContain('as.function.default');
  });

  it('ordinary analysis still runs: ggplot2, dplyr with quosures, tidyr, purrr, readr, data.table, formulas', async () => {
    const script = [
      ...['dplyr', 'tidyr', 'purrr', 'ggplot2', 'readr', 'data.table'].map((p) => `library(${p}, warn.conflicts = FALSE)`),
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
  });
});

describe('red team: environment-valued exports reach no package frame (packages.environmentExports)', () => {
  it('readr\'s R6 stand-ins hold no parent_env, set(), get_inherit() or .__enclos_env__, through any accessor', async () => {
    const script = [
      'library(readr)',
      'g <- DataFrameCallback',
      'cb <- g$new(function(x, pos) x)',
      'reached <- list(g$parent_env, g$self, g$set, g$get_inherit, g$public_methods, .subset2(g, "parent_env"),',
      '  readr::DataFrameCallback$parent_env, cb$.__enclos_env__, .subset2(cb, ".__enclos_env__"), cb[[".__enclos_env__"]],',
      '  cb$clone()$.__enclos_env__, cb$clone(deep = TRUE)$.__enclos_env__)',
      'envs <- c(unlist(eapply(g, is.environment, all.names = TRUE)), unlist(eapply(cb, is.environment, all.names = TRUE)))',
      'cat(all(vapply(reached, is.null, NA)), any(envs), ls(g, all.names = TRUE), "\\n")',
    ].join('\n');
    expect(validator(script).valid).toBe(true);
    const response = await h.run(script);
    expect(response).toMatchObject({ status: 'ok', consoleOutput: 'TRUE FALSE classname new \n' });
  });

  it.each([
    ['environment(CoordCartesian$transform)', 'library(ggplot2)\ne <- environment(CoordCartesian$transform)', 'environment'],
    ['environment(Stat$super)', 'library(ggplot2)\ne <- environment(.subset2(Stat, "super"))', 'environment'],
    ['parent.env(DataFrameCallback)', 'library(readr)\ne <- parent.env(DataFrameCallback)', 'parent.env'],
    ['get() from a generator', 'library(readr)\ne <- get("parent_env", envir = DataFrameCallback)', 'get'],
    ['sys.function() in a callback', 'library(readr)\nread_lines_chunked(readr_example("mtcars.csv"), function(x, pos) sys.function(), chunk_size = 5)', 'sys.function'],
  ])('%s is refused by both validators', async (_label, script, symbol) => {
    expect(validator(script).errors.map((e) => `${e.code}:${e.symbol ?? ''}`)).toContain(`FORBIDDEN_SYMBOL:${symbol}`);
    const response = await permissive.run(script);
    expect(response.status).toBe('rejected');
    expect(response.validation?.errors.map((e) => `${e.code}:${e.symbol ?? ''}`)).toContain(`FORBIDDEN_SYMBOL:${symbol}`);
  });

  it('forecast evaluates a series name in the script\'s frame, not its own: BoxCox\'s example runs, a planted name reads nothing', async () => {
    // In forecast's frame eval.parent() reached base's real Sys.getenv(): the process environment.
    // And it missed the script's variables, which plain R keeps in globalenv(): fitted() of the example failed.
    const script = [
      'library(forecast)',
      'lambda <- BoxCox.lambda(lynx)',
      'lynx.fit <- ar(BoxCox(lynx, lambda))',
      'fc <- forecast(lynx.fit, h = 20, lambda = lambda)',
      'fit <- ar(lynx)',
      'fit$series <- "Sys.getenv(\'HOME\')"',
      'cat(length(fc$mean), is.null(getResponse(fit)), "\\n")',
    ].join('\n');
    expect(validator(script).valid).toBe(true);
    const response = await h.run(script, { timeoutSeconds: 30 });
    expect(response).toMatchObject({ status: 'ok', consoleOutput: '20 TRUE \n' });
  }, 60_000);
});
