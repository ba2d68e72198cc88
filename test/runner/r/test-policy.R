# policy.R: the rules file as the name vectors the rest of the runner reads.
runner <- load_runner()
policy <- runner$compile_policy(rules, test_packages)
every_forbidden <- unique(unlist(lapply(rules$forbiddenSymbols, function(c) unlist(c$symbols))))

case("forbidden holds every symbol of every category, once", {
  expect_identical(sort(unname(policy$forbidden)), sort(every_forbidden))
})
case("blocked operators and loaders come from the rules", {
  expect_identical(policy$blocked_operators, vapply(rules$blockedOperators, function(b) b$operator, ""))
  expect_identical(policy$loaders, unlist(rules$packageLoaders))
})
case("a loader's first argument is always allowed by its name, package", {
  expect_identical(policy$loader_args[[1L]], "package")
})
case("the allowed packages are the ones the handler passed", {
  expect_identical(policy$allowed_packages, test_packages)
})
case("no allowed packages means none, not an error", {
  expect_identical(length(runner$compile_policy(rules, list())$allowed_packages), 0L)
})
case("the deep stubs are the process and network categories plus the time-limit and code-from-file functions", {
  process <- unlist(rules$forbiddenSymbols$process$symbols)
  expect_true(all(c(process, unlist(rules$forbiddenSymbols$network$symbols)) %in% policy$deep_stubbed))
  expect_true(all(c("setTimeLimit", "source", "Sweave") %in% policy$deep_stubbed))
  expect_identical(anyDuplicated(policy$deep_stubbed), 0L)
})
case("the relaxations come from the rules, function-valued arguments with the higher-order ones", {
  relax <- rules$relaxations
  expect_identical(policy$column_functions, unlist(relax$columnNames$columnFunctions))
  expect_true(all(c("values_fn", "FUN", ".f") %in% policy$function_valued_args))
  expect_identical(sort(names(policy$literal_functions)), c("do.call", "match.fun"))
  expect_identical(policy$local_functions, "local")
})
