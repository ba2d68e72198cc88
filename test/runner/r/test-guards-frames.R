# guards-frames.R: a package frame captured through a function value is never handed out.
use_script_sandbox(c(test_packages, "ggplot2", "purrr", "stringr"))
contained <- function(env) expect_true(is.environment(env) && runner$is_contained(env))
environment_of <- function(x) attr(x, ".Environment", exact = TRUE)
suppressMessages(for (pkg in c("dplyr", "ggplot2", "purrr", "stringr")) library(pkg, character.only = TRUE))

captures <- list(
  "lapply(1, new.env)" = "lapply(TRUE, new.env)[[1]]",
  "lapply(, 'new.env') (a name the copy looks up)" = "lapply(TRUE, 'new.env')[[1]]",
  "purrr::map(, new.env)" = "purrr::map(TRUE, new.env)[[1]]",
  "mapply(new.env, TRUE)" = "mapply(new.env, TRUE, SIMPLIFY = FALSE)[[1]]",
  "tryCatch(error = new.env) (a handler: no copy)" = "tryCatch(stop(TRUE), error = new.env)",
  "lapply(list(df), formula)" = "environment_of(lapply(list(data.frame(y = 1, x = 2)), formula)[[1]])",
  "Map(formula, list(df))" = "environment_of(Map(formula, list(data.frame(y = 1, x = 2)))[[1]])",
  "lapply(1, `~`)" = "environment_of(lapply(1, `~`)[[1]])",
  "tryCatch(error = `~`)" = "environment_of(tryCatch(stop('x'), error = `~`))",
  "lapply(list(df), ggplot2::ggplot)$plot_env" = "lapply(list(data.frame(a = 1)), ggplot2::ggplot)[[1]]$plot_env",
  "purrr::map(list(df), ggplot)$plot_env" = "purrr::map(list(data.frame(a = 1)), ggplot)[[1]]$plot_env",
  "asOneSidedFormula(quote(~x)) (it sets globalenv())" = "environment_of(asOneSidedFormula(quote(~x)))"
)
# The test reads the formula's environment with the real attr() (the script's refuses environments).
assign("environment_of", environment_of, envir = script_env)
for (name in names(captures)) {
  case(sprintf("%s gives an environment the script contains", name), contained(in_script(captures[[name]])))
}

case("a quosure made in a package frame is refused (tryCatch(error = quo))", {
  expect_error(in_script("tryCatch(stop('x'), error = dplyr::quo)"), "the value of quo\\(\\): an environment outside")
  expect_error(in_script("tryCatch(stop('x'), error = quos)"), "the value of quos\\(\\): an environment outside")
})
case("quo(), aes() and vars() of the script still work", {
  contained(environment_of(in_script("quo(x + 1)")))
  contained(environment_of(in_script("aes(x, y)")$x))
  expect_identical(length(in_script("vars(a, b)")), 2L)
})
case("an environment given explicitly must be the script's", {
  assign("outside", asNamespace("stats"), envir = script_env)
  expect_error(in_script("new.env(parent = outside)"), "new.env\\(parent = \\): an environment outside")
  expect_error(in_script("formula(y ~ x, env = outside)"), "formula\\(env = \\): an environment outside")
  expect_error(in_script("ggplot(environment = outside)"), "ggplot\\(environment = \\): an environment outside")
  expect_error(in_script("stringr::str_glue('{1}', .envir = outside)"), "str_glue\\(.envir = \\)")
  expect_error(in_script("bquote(.(x), where = outside)"), "bquote\\(where = \\)")
  contained(in_script("new.env(parent = new.env())"))
})
case("the capturing functions otherwise behave as before", {
  expect_identical(in_script("deparse(formula(data.frame(y = 1, x = 2)))"), "y ~ x")
  in_script("x <- 2")
  expect_identical(in_script("bquote(.(x) + 1)"), quote(2 + 1))
  expect_identical(in_script("as.character(stringr::str_glue('{1 + 1}'))"), "2")
  expect_identical(class(in_script("y ~ x")), "formula")
  contained(environment_of(in_script("y ~ x")))
})

case("a copied higher-order function keeps its environment and wraps only function arguments", {
  copy <- runner$hof_guard(base::lapply, "lapply", policy)
  expect_identical(environment(copy), environment(base::lapply))
  expect_identical(in_script("sapply(1:3, function(i) i^2)"), c(1, 4, 9))
  expect_identical(in_script("unlist(purrr::map(list(list(a = 'p')), 'a'))"), "p")
})
case("the rules' unwrappedFunctions reach the copy as they are: setDT() sees lapply()'s call", {
  contain <- function(f) runner$contain_function(f, script_env, FALSE)
  expect_identical(contain(data.table::setDT), data.table::setDT)
  expect_true(!identical(contain(data.table::as.data.table), data.table::as.data.table))
  tables <- in_script("lapply(split(data.frame(g = c(1, 2), x = 1:2), c(1, 2)), data.table::setDT)")
  expect_true(all(vapply(tables, data.table::is.data.table, NA)))
})
case("generics and Vectorize() are not copied (a changed argument would not reach the method)", {
  expect_identical(runner$hof_guard(base::by, "by", policy), NULL)
  expect_identical(runner$hof_guard(base::Vectorize, "Vectorize", policy), NULL)
  expect_identical(runner$hof_guard(stats::setNames, "setNames", policy), NULL)
})
case("a function name given to a copy is looked up through the mask", {
  expect_error(in_script("lapply(1, paste0('sys', 'tem'))"), "'system' is not available in jube-r")
  expect_error(in_script("ave(1, 1, FUN = paste0('sys', 'tem'))"), "'system' is not available in jube-r")
})

# Every export of base R and the allowed packages whose argument defaults to the caller's frame
# (parent.frame(), rlang's caller_env()/current_env(), ...) is guarded, forbidden, or here with
# the reason it hands out nothing a script could evaluate in. methods' `where =
# topenv(parent.frame())` defaults are harmless as a group: a package frame's top level is a
# locked namespace, so a definition there fails and a look-up returns classes, methods or names.
harmless <- c(
  "base::body", "base::formals", "base::match.call", "methods::functionBody", # a function's parts or a call
  "methods::substituteDirect", "methods::missingArg", # an expression with the frame's values; a logical
  "utils::isS3method", "utils::.S3methods", # method names
  "base::dump", "base::save", # write the frame's named objects to a file (the script cannot load code back)
  "base::withAutoprint", # runs source(), a stub in base
  "stats::model.matrix.default", "stats::termplot", "stats::expand.model.frame", "Matrix::sparse.model.matrix",
  "utils::packageName", "utils::findLineNum", "data.table::tables", # names and reports only
  "readr::local_edition", # schedules readr's own reset at the frame's exit
  "tidyr::build_wider_spec", "tidyr::chop", "tidyr::pivot_wider_spec", "tidyr::unchop", "tidyr::pack",
  "tidyr::build_longer_spec", "tidyr::unpack", "tidyr::check_pivot_spec", "tidyr::pivot_longer_spec",
  "ggplot2::calc_element" # the frame only names the call in an error message
)
case("every caller-frame default of an allowed export is guarded, forbidden or known to be harmless", {
  # parent.frame(), caller_env(), current_env(), sys.function(), environment() of nothing; not
  # topenv(parent.frame()) (above), not environment(f) of a given function.
  captures_caller <- function(default) {
    text <- gsub("topenv(parent.frame())", "", paste(deparse(default), collapse = " "), fixed = TRUE)
    grepl("parent\\.frame\\(|caller_env\\(|current_env\\(|sys\\.function\\(|environment\\(\\)", text)
  }
  blocked <- vapply(rules$packages$blocked, function(b) b$name, "")
  declared <- jsonlite::fromJSON(file.path(repo_root, "layers", "packages", "manifest.json"))$declared
  unguarded <- character()
  for (pkg in setdiff(c(unlist(rules$packages$baseAllowed), declared), blocked)) {
    ns <- if (pkg == "base") .BaseNamespaceEnv else suppressMessages(asNamespace(pkg))
    exports <- if (pkg == "base") ls(ns, all.names = TRUE) else getNamespaceExports(pkg)
    guarded <- c(names(runner$caller_frame_guards), names(runner$evaluator_guards))
    for (name in setdiff(exports, c(policy$forbidden, guarded))) {
      f <- get(name, envir = ns)
      if (!is.function(f) || is.primitive(f) || paste0(pkg, "::", name) %in% harmless) next
      if (any(vapply(Filter(is.call, as.list(formals(f))), captures_caller, NA))) {
        unguarded <- c(unguarded, paste0(pkg, "::", name))
      }
    }
  }
  expect_identical(unguarded, character())
})
