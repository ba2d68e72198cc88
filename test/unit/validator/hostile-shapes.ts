/**
 * The wrapping shapes an attacker could hide a call in, crossed with every capability function by
 * test/unit/validator/hostile-corpus.test.ts. `direct`: the shape still writes a call of the name
 * (plain, qualified, backquoted, string-called, nested in other calls), which /validate advises
 * against; the others reach the function by a value or a string, which is the capsule's to refuse
 * at run time (test/runner/escaped/hostile-corpus.test.ts runs those routes in R).
 */
const SYNTACTIC = /^((?:[A-Za-z]|\.(?![0-9]))[A-Za-z0-9._]*)$/;
const RESERVED = new Set(['if', 'else', 'repeat', 'while', 'function', 'for', 'next', 'break', 'TRUE', 'FALSE', 'NULL', 'Inf', 'NaN', 'NA', 'in']);
const asName = (s: string): string => (SYNTACTIC.test(s) && !RESERVED.has(s) ? s : `\`${s}\``);
const hex = (s: string): string => [...s].map((c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
const firstAs = (s: string, esc: (code: number) => string): string => esc(s.charCodeAt(0)) + s.slice(1);

export interface Shape {
  readonly name: string;
  readonly build: (symbol: string, args: string) => string;
  /** The shape writes a call of the name itself. */
  readonly direct?: true;
}

/** How a function name `s` can be dressed, given arguments `a`. */
export const SHAPES: readonly Shape[] = [
  { name: 'direct call', build: (s, a) => `${asName(s)}(${a})`, direct: true },
  { name: 'aliased', build: (s, a) => `f <- ${asName(s)}\nf(${a})` },
  { name: 'right-assigned alias', build: (s, a) => `${asName(s)} -> f\nf(${a})` },
  { name: 'in a function body', build: (s, a) => `g <- function(...) {\n  x <- 1\n  ${asName(s)}(${a})\n}\ng()`, direct: true },
  { name: 'as a default argument', build: (s, a) => `h <- function(f = ${asName(s)}) f(${a})\nh()` },
  { name: 'in a pipe', build: (s, a) => `list() |> ${asName(s)}(${a})`, direct: true },
  { name: 'in a magrittr pipe', build: (s, a) => `library(dplyr)\nlist() %>% ${asName(s)}(${a})`, direct: true },
  { name: 'base:: qualified', build: (s, a) => `base::${asName(s)}(${a})`, direct: true },
  { name: 'base::: qualified', build: (s, a) => `base:::${asName(s)}(${a})`, direct: true },
  { name: 'utils:: qualified value', build: (s) => `f <- utils::${asName(s)}` },
  { name: 'backquoted', build: (s, a) => `\`${s}\`(${a})`, direct: true },
  { name: 'backquoted with an escape', build: (s, a) => `\`${firstAs(s, (c) => `\\x${c.toString(16)}`)}\`(${a})`, direct: true },
  { name: 'string-called', build: (s, a) => `"${s}"(${a})`, direct: true },
  { name: 'single-quoted string-called', build: (s, a) => `'${s}'(${a})`, direct: true },
  { name: 'raw-string-called', build: (s, a) => `r"(${s})"(${a})`, direct: true },
  { name: 'raw string with dashes', build: (s, a) => `R'--[${s}]--'(${a})`, direct: true },
  { name: 'qualified string', build: (s, a) => `base::"${s}"(${a})`, direct: true },
  { name: 'parenthesized', build: (s, a) => `(${asName(s)})(${a})` },
  { name: 'passed as an argument', build: (s) => `lapply(list(1), ${asName(s)})` },
  { name: 'in a list', build: (s) => `fs <- list(a = ${asName(s)})` },
  { name: 'string to sapply', build: (s) => `sapply(list(1), "${s}")` },
  { name: 'string to Map', build: (s) => `Map("${s}", list(1))` },
  { name: 'string to purrr::map', build: (s) => `purrr::map(list(1), "${s}")` },
  { name: 'FUN = string', build: (s) => `aggregate(x ~ g, data = d, FUN = "${s}")` },
  { name: 'hex-escaped string to vapply', build: (s) => `vapply(1, "${hex(s)}", 1)` },
  { name: 'unicode-escaped string called', build: (s, a) => `"${firstAs(s, (c) => `\\u${c.toString(16).padStart(4, '0')}`)}"(${a})`, direct: true },
  { name: 'braced unicode escape to lapply', build: (s) => `lapply(1, "${firstAs(s, (c) => `\\u{${c.toString(16)}}`)}")` },
  { name: 'octal-escaped string to Filter', build: (s) => `Filter("${firstAs(s, (c) => `\\${c.toString(8)}`)}", 1)` },
  { name: 'inside tryCatch', build: (s, a) => `tryCatch(${asName(s)}(${a}), error = function(e) NULL)`, direct: true },
  { name: 'inside withCallingHandlers', build: (s, a) => `withCallingHandlers(${asName(s)}(${a}), warning = function(w) invokeRestart("muffleWarning"))`, direct: true },
  { name: 'inside Reduce', build: (s, a) => `Reduce(function(acc, x) ${asName(s)}(${a}), list(1, 2))`, direct: true },
  { name: 'passed to Map', build: (s) => `Map(${asName(s)}, list(1))` },
  { name: 'in a formula', build: (s, a) => `y ~ ${asName(s)}(${a})`, direct: true },
  { name: 'in a lambda', build: (s, a) => `sapply(1:3, \\(i) ${asName(s)}(${a}))`, direct: true },
  { name: 'in control flow', build: (s, a) => `for (i in 1) if (TRUE) ${asName(s)}(${a}) else NULL`, direct: true },
  { name: 'in quote()', build: (s, a) => `e <- quote(${asName(s)}(${a}))`, direct: true },
  { name: 'in a formula string', build: (s) => `fit <- lm("y ~ ${asName(s)}(x)", data = d)` },
  { name: 'string to an optimiser', build: (s) => `integrate("${s}", 0, 1)` },
  { name: 'string to zoo::rollapply', build: (s) => `zoo::rollapply(1:10, 3, "${s}")` },
  // Routes an earlier, name-based layer tried to close one by one.
  { name: 'called inside a column function', build: (s, a) => `dplyr::filter(d, ${asName(s)}(${a}))`, direct: true },
  { name: 'passed on inside a column function', build: (s) => `dplyr::mutate(d, y = lapply(x, ${asName(s)}))` },
  { name: 'a function-valued argument of a column function', build: (s) => `tidyr::pivot_wider(d, values_fn = ${asName(s)})` },
  { name: 'an operand beside a redefined operator', build: (s, a) => `\`==\` <- function(a, b) b(${a})\n1 == ${asName(s)}` },
  { name: 'an operand beside an Ops method', build: (s, a) => `Ops.k <- function(e1, e2) e2(${a})\nstructure(1, class = "k") + ${asName(s)}` },
  { name: 'an operand inside with()', build: (s, a) => `with(setNames(list(function(a, b) b(${a})), "=="), 1 == ${asName(s)})` },
  { name: 'an argument of a redefined column function', build: (s, a) => `desc <- function(f) f(${a})\ndesc(${asName(s)})` },
  { name: 'an argument dispatching to a .function method', build: (s, a) => `mean.function <- function(x, ...) x(${a})\nmean(${asName(s)})` },
  { name: 'named by do.call', build: (s, a) => `do.call(${asName(s)}, list(${a}))` },
  { name: 'named by do.call as a string', build: (s, a) => `do.call("${s}", list(${a}))` },
  { name: 'named by match.fun', build: (s, a) => `match.fun("${s}")(${a})` },
  { name: 'piped into do.call', build: (s, a) => `"${s}" |> do.call(list(${a}))` },
  { name: 'inside local() with an environment', build: (s, a) => `local(${asName(s)}(${a}), envir = new.env())`, direct: true },
];
