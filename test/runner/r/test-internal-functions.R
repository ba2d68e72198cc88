# internal-functions.R: the packages.internalFunctions lists as the policy holds them, the wording of a
# refusal, and the operands of `:::` as the re-validation reads them (the rule itself: test-revalidate.R;
# the mask's `:::`: test-mask.R).
runner <- load_runner()

case("the policy lists internal functions only for packages the script may load", {
  with_glmnet <- runner$compile_policy(rules, c(test_packages, "glmnet"))
  expect_identical(with_glmnet$internal_functions, list(glmnet = c("fid", "cox.path")))
  expect_identical(runner$compile_policy(rules, test_packages)$internal_functions, stats::setNames(list(), character()))
})
case("a blocked package has none, even when the run's list names it", {
  blocked <- rules$packages$blocked[[1L]]$name
  listed <- rules
  group <- list(why = "x", names = list("f"))
  listed$packages$internalFunctions$packages <- list(list(name = blocked, groups = list(group)))
  expect_identical(names(runner$compile_policy(listed, c(test_packages, blocked))$internal_functions), character())
})

policy <- runner$compile_policy(rules, c(test_packages, "glmnet"))
case("internal_function_listed takes one listed name of one listed package", {
  expect_true(runner$internal_function_listed("glmnet", "fid", policy))
  expect_identical(runner$internal_function_listed("glmnet", "glmnet.path", policy), FALSE)
  expect_identical(runner$internal_function_listed("stats", "fid", policy), FALSE)
  expect_identical(runner$internal_function_listed("glmnet", c("fid", "fid"), policy), FALSE)
  expect_identical(runner$internal_function_listed(c("glmnet", "glmnet"), "fid", policy), FALSE)
  expect_identical(runner$internal_function_listed(NA_character_, "fid", policy), FALSE)
  expect_identical(runner$internal_function_listed("glmnet", NA_character_, policy), FALSE)
})
case("the hint is the TypeScript validator's sentence (blocked-operator.test.ts asserts it there)", {
  expect_identical(runner$internal_functions_hint("glmnet", policy),
    ". Of glmnet's internal functions, a script may use only fid, cox.path, as glmnet:::name.")
  expect_identical(runner$internal_functions_hint("stats", policy), "")
})
case("the operands of ::: are read as R reads them: strings' values, backquoted names decoded", {
  parsed <- runner$parse_script(script_file("\"glmnet\":::`f\\x69d`; glmnet:::'cox.path'; glmnet:::fid"))
  ops <- which(parsed$tokens$token == "NS_GET_INT")
  operands <- lapply(ops, function(i) c(runner$ns_operand(parsed, i - 1L), runner$ns_operand(parsed, i + 1L)))
  expect_identical(operands, list(c("glmnet", "fid"), c("glmnet", "cox.path"), c("glmnet", "fid")))
  expect_identical(runner$ns_operand(parsed, 0L), "")
})
case("every listed name is an unexported function of its installed package, with a help page", {
  for (p in rules$packages$internalFunctions$packages) {
    ns <- asNamespace(p$name)
    for (name in unlist(lapply(p$groups, function(g) g$names))) {
      expect_true(is.function(get0(name, envir = ns, inherits = FALSE)))
      expect_identical(name %in% getNamespaceExports(ns), FALSE)
      expect_true(length(utils::help(name, package = (p$name))) == 1L)
    }
  }
})
