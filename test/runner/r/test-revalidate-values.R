# revalidate-values.R: the re-validation's rules for names reached other than by a plain call (a loader or
# options() as a value, a replacement function, a formula string), each on its own, as the TypeScript
# validator's checks decide them (test/runner/validator-differential.test.ts compares the two at large).
runner <- load_runner()
policy <- runner$compile_policy(rules, test_packages)

rule_table("function_value",
  allowed = c(
    "library(dplyr)", "options(digits = 3)", "x$library", "list(options = 1)", "library <- 1",
    "for (options in 1:2) print(1)", "x <- 'library'", "'library'(dplyr)", "paste('options')"
  ),
  refused = list(
    "lapply(pkgs, library)" = "PACKAGE_LOADER_ARGUMENT:library",
    "lapply(pkgs, base::require)" = "PACKAGE_LOADER_ARGUMENT:require",
    "sapply(pkgs, 'requireNamespace')" = "PACKAGE_LOADER_ARGUMENT:requireNamespace",
    "'library' |> lapply(X = 'dplyr')" = "PACKAGE_LOADER_ARGUMENT:library",
    "do.call('library', list('dplyr'))" = "PACKAGE_LOADER_ARGUMENT:library",
    "f <- options" = "OPTION_NOT_ALLOWED:options",
    "do.call(options, list(editor = 'vi'))" = "OPTION_NOT_ALLOWED:options",
    "aggregate(x ~ g, data = d, FUN = 'options')" = "OPTION_NOT_ALLOWED:options"
  )
)

rule_table("replacement_call",
  allowed = c("names(x) <- 'a'", "levels(x)[1] <- 'b'", "y <- body(f)", "body(f)", "formals(f)$x"),
  refused = list(
    "body(f) <- quote(x)" = "FORBIDDEN_SYMBOL:body<-",
    "body(f)[[1]] <- quote(x)" = "FORBIDDEN_SYMBOL:body<-",
    "formals(f)$x <- 1" = "FORBIDDEN_SYMBOL:formals<-",
    "quote(x) -> environment(f)" = "FORBIDDEN_SYMBOL:environment<-",
    "names(body(f)) = 'a'" = "FORBIDDEN_SYMBOL:body<-",
    "base::body(f) <- 1" = "FORBIDDEN_SYMBOL:body<-"
  )
)

long <- paste0("\"y ~ ", strrep("x + ", 300), "system('id')\"")
rule_table("formula_string",
  allowed = c("lm('y ~ x', data = d)", "f <- 'y ~ log(x) + s(z)'", "paste('system', 'x')", "'a ~ source_id'"),
  refused = setNames(
    list(
      "FORBIDDEN_STRING_FUNCTION:system", "FORBIDDEN_STRING_FUNCTION:makeCluster",
      "FORBIDDEN_STRING_FUNCTION:formals<-", "FORBIDDEN_STRING_FUNCTION:system", "BLOCKED_OPERATOR:<<-",
      "FORBIDDEN_STRING_FUNCTION:system"
    ),
    c(
      "lm('y ~ system(x)', data = d)", "lm(\"y ~ makeCluster(x)\", data = d)", "lm('y ~ `formals<-`(x)', d)",
      "lm('y ~ \\x73ystem(x)', d)", "lm('y ~ (a <<- x)', d)", sprintf("fit <- lm(%s, data = d)", long)
    )
  )
)

rule_table("class_value",
  allowed = c("class(x) <- 'data.frame'", "y <- 'getenv'", "structure(1, cls = 'getenv')", "'getenv' -> class(x)"),
  refused = list(
    "class(x) <- 'getenv'" = "FORBIDDEN_STRING_FUNCTION:getenv",
    "oldClass(x) = c('a', 'packages')" = "FORBIDDEN_STRING_FUNCTION:packages",
    "structure(1, class = 'getenv')" = "FORBIDDEN_STRING_FUNCTION:getenv",
    "base::structure(1, class = c('k', if (TRUE) 'getenv'))" = "FORBIDDEN_STRING_FUNCTION:getenv"
  )
)

rule_table("s3_dispatch",
  allowed = c(
    "describe <- function(x) UseMethod('describe')", "NextMethod()", "print.k <- function(x) NextMethod('print')"
  ),
  refused = list(
    "f <- function(x) UseMethod('Sys')" = "FORBIDDEN_STRING_FUNCTION:Sys",
    "UseMethod('system')" = "FORBIDDEN_STRING_FUNCTION:system",
    "UseMethod(g)" = "FORBIDDEN_STRING_FUNCTION:UseMethod",
    "UseMethod()" = "FORBIDDEN_STRING_FUNCTION:UseMethod",
    "NextMethod(generic = g)" = "FORBIDDEN_STRING_FUNCTION:NextMethod"
  )
)

case("s3_name_parts splits each forbidden name at every dot but a leading one", {
  parts <- runner$s3_name_parts(c("Sys.getenv", ".libPaths", "update.packages", "a.b.c", "system"))
  expect_identical(parts$prefixes, c("Sys", "update", "a", "a.b"))
  expect_identical(parts$suffixes, c("getenv", "packages", "b.c", "c"))
})

case("is_assignment_target follows first arguments, indexes and fields up to an assignment", {
  parsed <- runner$parse_script(script_file("names(f(x)[1])$a <- 1\ng(h(y)) + 1\nk(1, m(z)) <- 2"))
  pd <- parsed$pd
  call_of <- function(name) {
    i <- which(parsed$tokens$text == name & parsed$tokens$token == "SYMBOL_FUNCTION_CALL")[[1L]]
    runner$pd_row(pd, parsed$tokens$parent[[i]])$parent
  }
  expect_identical(
    vapply(c("names", "f", "g", "h", "k", "m"), function(n) runner$is_assignment_target(pd, call_of(n)), NA),
    c(names = TRUE, f = TRUE, g = FALSE, h = FALSE, k = TRUE, m = FALSE)
  )
})
