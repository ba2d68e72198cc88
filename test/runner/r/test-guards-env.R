# guards-env.R: which environments are the script's, and the environment-valued bindings the
# mask shadows at start and when a package is attached.
use_script_sandbox(c(test_packages, "readr", "ggplot2", "scales"))

case("the mask, the script's environment and what descends from them are contained", {
  expect_true(runner$is_contained(mask))
  expect_true(runner$is_contained(script_env))
  expect_true(runner$is_contained(new.env(parent = new.env(parent = script_env))))
})
case("namespaces, base, globalenv() and closed environments are not", {
  for (env in list(globalenv(), baseenv(), asNamespace("stats"), emptyenv(), new.env(parent = emptyenv()))) {
    expect_identical(runner$is_contained(env), FALSE)
  }
})
case("refuse_uncontained() lets values and the script's environments through", {
  expect_identical(runner$refuse_uncontained(1, "x"), NULL)
  expect_identical(runner$refuse_uncontained(script_env, "x"), NULL)
  expect_error(
    runner$refuse_uncontained(asNamespace("stats"), "with(data = )"), "with\\(data = \\): an environment outside"
  )
})
case("an S4 object extending environment is judged by its own parent chain", {
  methods::setClass("JubeEnvTest", contains = "environment", where = globalenv())
  expect_identical(runner$is_contained(methods::new("JubeEnvTest")), FALSE)
})

case("base's environment-valued bindings are found", {
  found <- runner$environment_bindings(baseenv())
  for (name in c(".AutoloadEnv", ".userHooksEnv", ".ArgsEnv", ".GenericArgsEnv")) expect_true(name %in% found)
  expect_identical(intersect(found, c("lm", "lapply", "pi")), character())
})
case("the scan leaves large stored values unloaded", {
  runner$environment_bindings(as.environment("package:stats"))
  # Not bound to a variable first: a variable holding a promise forces it when read.
  stats_env <- as.environment("package:stats")
  expect_identical(typeof(.Internal(getVarsFromFrame("arima", stats_env, FALSE))[[1L]]), "promise")
})
for (name in c(".AutoloadEnv", ".userHooksEnv", ".GenericArgsEnv", ".__T__show:methods")) {
  case(sprintf("the mask refuses to hand out %s", name), {
    expect_error(in_script(sprintf("`%s`", name)), "is an environment, which is not available in jube-r")
  })
}
case("the mask leaves ordinary names alone", expect_identical(in_script("pi"), pi))

case("a package attached later is scanned as it attaches: scales' R6 generators", {
  suppressMessages(library(scales))
  expect_error(in_script("ContinuousRange"), "'ContinuousRange' \\(package:scales\\) is an environment")
  expect_identical(is.function(in_script("rescale")), TRUE)
})
case("...and the rules' environment exports are answered instead: readr's R6 generators by a stand-in", {
  suppressMessages(library(readr))
  generator <- in_script("ChunkCallback")
  expect_true(inherits(generator, "R6ClassGenerator") && is.function(generator$new))
  expect_identical(generator$parent_env, NULL)
  expect_identical(is.function(in_script("read_csv")), TRUE)
})
case("...ggplot2's ggproto objects as they are", {
  suppressMessages(library(ggplot2))
  expect_identical(in_script("GeomPoint"), ggplot2::GeomPoint)
})
case("a later package's own binding wins over what the mask shadowed for an earlier one", {
  attach(list(jube_shared = new.env()), name = "package:jubeenvs", warn.conflicts = FALSE)
  runner$guard_attached("jubeenvs")
  expect_error(in_script("jube_shared"), "is an environment")
  attach(list(jube_shared = 42), name = "package:jubevalues", warn.conflicts = FALSE)
  runner$guard_attached("jubevalues")
  expect_identical(in_script("jube_shared"), 42)
})
