/**
 * The routes of the earlier red-team passes, statically: names are advice (docs/script-rules.md),
 * so each passes /validate, and what it reaches is refused below R at run time
 * (test/runner/red-team.test.ts runs them through the handler). Only a direct call of a
 * capability function is advised against, whatever wraps it.
 */
import { describe, expect, it } from 'vitest';
import { errorsOf } from './support.ts';

describe('red-team routes: the validator advises, the capsule decides', () => {
  it.each([
    ['attach() shadowing base', 'attach(list(c = function(...) NULL))'],
    ['methods::findFunction of a name built at run time', 'f <- methods::findFunction(paste0("sys", "tem"))'],
    ['getClass and its environment slot', 'p <- purrr::pluck(methods::getClass("environment"), "prototype")'],
    ['a restart handler named by a string', 'withRestarts(invokeRestart("r", quote(1)), r = list(handler = paste0("ev", "al")))'],
    ['a global calling handler', 'globalCallingHandlers(error = function(e) NULL)'],
    ['a formula naming a function by a string', 'fit <- lm(paste0("y ~ sys", "tem(x)"), data = d)'],
    ['ave() with FUN named by a string', 'ave("x", 1, FUN = paste0("sys", "tem"))'],
    ['get() and match.fun()', 'f <- get("system"); g <- match.fun("system2")'],
    ['eval(parse(text = ))', 'eval(parse(text = "1 + 1"))'],
    ['do.call of a string', 'do.call("system", list("id"))'],
    ['.Internal reached by a name built at run time', 'q <- quote(I(s("x"))); q[[1]] <- as.name(paste0(".Inter", "nal"))'],
    ['environments and frames', 'e <- environment(sum); f <- sys.function(); p <- parent.frame(); assign("x", 1, envir = globalenv())'],
    ['<<- and :::', 'g <- function() x <<- 1; h <- stats:::print.lm'],
  ])('%s passes /validate', async (_, script) => {
    expect(await errorsOf(script)).toEqual([]);
  });

  it.each([
    ['system() inside tryCatch', 'tryCatch(system("id"), error = function(e) NULL)', 'system'],
    ['a pipe() connection', 'readLines(pipe("id"))', 'pipe'],
    ['dyn.load of a system library', 'dyn.load("/lib/x86_64-linux-gnu/libblas.so.3")', 'dyn.load'],
    ['.C of a routine named by the script', '.C("dcopy_", 2L)', '.C'],
    ['data.table::address', 'data.table::address(x)', 'address'],
  ])('a direct call of a capability function is advised against: %s', async (_, script, name) => {
    expect(await errorsOf(script)).toEqual([`CAPABILITY_NOT_AVAILABLE:${name}`]);
  });
});
