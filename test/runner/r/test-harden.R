# harden.R: the guards each on their own, then harden_runtime() on this (throwaway) R process.
runner <- load_runner()
policy <- runner$compile_policy(rules, test_packages)

case("the name guard refuses forbidden names as strings and symbols", {
  guard <- runner$name_guard(policy)
  expect_error(guard("system"), "'system' is not available")
  expect_error(guard(quote(system)), "'system' is not available")
})
case("the name guard answers safe replacements and lets other names through", {
  guard <- runner$name_guard(policy)
  expect_identical(guard("attr"), runner$safe_attr)
  expect_identical(guard("mean"), NULL)
  expect_identical(guard(mean), NULL)
})
for (text in c("y ~ system('id')", "y ~ (x <<- 1)", "y ~ get('x')")) {
  case(sprintf("the formula guard refuses %s", text), {
    expect_error(runner$formula_guard(policy)(text), "not even inside a formula")
  })
}
case("the formula guard accepts a plain formula and non-text", {
  expect_identical(runner$formula_guard(policy)("y ~ x + log(z)"), NULL)
  expect_identical(runner$formula_guard(policy)(y ~ x), NULL)
})
case("a graphics file name starting with | is refused", {
  expect_error(runner$check_device_file(" |cat > /tmp/x"), "pipes the output")
  expect_identical(runner$check_device_file("plot.pdf"), NULL)
})
case("dyn.load is limited to R's installed libraries", {
  expect_error(runner$check_dll_path("/tmp/evil.so"), "outside R's installed libraries")
  expect_error(runner$check_dll_path(NA_character_), "outside R's installed libraries")
  expect_identical(runner$check_dll_path(file.path(R.home(), "lib", "libR.so")), NULL)
})
case("a guarded lookup returns the guard's answer before looking anything up", {
  lookup <- runner$guarded_lookup(function(f) stop("looked up"), "f", function(f) if (identical(f, "x")) "safe")
  expect_identical(lookup("x"), "safe")
  expect_error(lookup("y"), "looked up")
})
case("without a capsule library, arming reports that the capsule is off", {
  expect_identical(runner$arm_capsule(""), "preload=off")
})
capsule <- file.path(repo_root, "build", "capsule", "jube_capsule.so")
case("a capsule that was not preloaded does not arm, and arming stops the run", {
  # This test process runs without LD_PRELOAD (nor the handler's policy): loading the library late
  # would interpose nothing, so the capsule refuses to report itself armed.
  refusal <- "the capsule could not be armed \\(preload=unavailable.*the script was not run"
  expect_error(runner$arm_capsule(capsule), refusal)
})

# Last: this changes base R in this process for good.
runner$harden_runtime(policy)
case("after hardening, base's process and time-limit functions are stubs", {
  expect_error(base::system("true"), "'system' is not available")
  expect_error(base::setTimeLimit(elapsed = 1), "'setTimeLimit' is not available")
})
case("after hardening, match.fun refuses a forbidden name from inside base", {
  expect_error(lapply(1, "system"), "'system' is not available")
  expect_error(ave(1, 1, FUN = paste0("sys", "tem")), "'system' is not available")
})
case("after hardening, a formula given as text is checked", {
  expect_error(stats::formula("y ~ system('id')"), "not even inside a formula")
})
case("after hardening, rlang's as_function is guarded as rlang loads", {
  if (!requireNamespace("rlang", quietly = TRUE)) return(invisible())
  expect_error(rlang::as_function("system"), "'system' is not available")
})
