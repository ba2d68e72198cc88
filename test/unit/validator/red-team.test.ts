/**
 * Regressions from the red-team pass (docs/script-rules.md, "Found by red-teaming"): each
 * script reached a shell, a package environment or the runner's own lookups before its name was
 * added to the rules. The runtime half of these findings is test/runner/red-team.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { errorsOf } from './support.ts';

describe('red-team regressions: the static walk', () => {
  describe('Noncompliance', () => {
    it.each([
      ['attach() shadowing base for the runner', 'attach(list(c = function(...) NULL))', 'attach'],
      ['attach(NULL) handing out a search-path environment', 'e <- attach(NULL); with(e, sapply("id", paste0("sys", "tem")))', 'attach'],
      ['methods::findFunction returning package:base', 'methods::findFunction(paste0("sys", "tem"))[[1]]$system("id")', 'findFunction'],
      ['methods::findClass returning package:methods', 'e <- methods::findClass("numeric")[[1]]', 'findClass'],
      ['a method table for dispatch', 'e <- methods::getMethodsForDispatch(methods::show)', 'getMethodsForDispatch'],
      ['findMethods', 'm <- methods::findMethods("show")', 'findMethods'],
      ['setGroupGeneric writing a generic into globalenv()', 'methods::setGroupGeneric("paste0", function(...) NULL, knownMembers = list())', 'setGroupGeneric'],
      ['evalSource running a file in a namespace', 'methods::evalSource("e.R", package = "stats")', 'evalSource'],
      ['insertSource', 'methods::insertSource("e.R", package = "stats")', 'insertSource'],
      ['Sweave running code chunks', 'utils::Sweave("x.Rnw")', 'Sweave'],
      ['Stangle', 'Stangle("x.Rnw")', 'Stangle'],
      ['functionBody<- (methods alias of body<-)', 'f <- function() 1; methods::functionBody(f) <- quote(2)', 'functionBody<-'],
      ['getClass, whose prototype slot is an environment', 'p <- purrr::pluck(methods::getClass("environment"), "prototype")', 'getClass'],
      ['getClassDef', 'd <- methods::getClassDef("environment")', 'getClassDef'],
      ['getRefClass, a generator environment', 'g <- methods::getRefClass("envRefClass")', 'getRefClass'],
      ['a global calling handler that runs during the runner\'s own code', 'globalCallingHandlers(error = function(e) NULL)', 'globalCallingHandlers'],
    ])('rejects %s', async (_, script, symbol) => {
      expect(await errorsOf(script)).toContain(`FORBIDDEN_SYMBOL:${symbol}`);
    });
  });

  describe('Compliance', () => {
    it.each([
      ['ave with a function named by a string', 'ave(c(1, 2, 3), c(1, 1, 2), FUN = "mean")'],
      ['a model from a formula string', 'fit <- lm("mpg ~ wt", data = mtcars)'],
      ['data() of a dataset', 'data(iris)'],
      ['S4 class, new() and @', 'setClass("P", representation(x = "numeric")); p <- new("P", x = 3); p@x'],
      ['reading an attribute', 'attr(structure(1, units = "kg"), "units")'],
      ['purrr::attr_getter (the runner answers it with a getter on its own attr())', 'library(purrr)\npluck(list(structure(1, u = "kg")), 1, attr_getter("u"))'],
      ['loadNamespace of an allowed package', 'loadNamespace("stats")'],
      ['a column called attach read through .data', 'dplyr::filter(d, .data$attach > 1)'],
    ])('accepts %s', async (_, script) => {
      expect(await errorsOf(script)).toEqual([]);
    });
  });
});
