# safe-calls.R: the script's do.call(), match.fun(), local() and options(), and the hardened
# reformulate(), refuse at run time what the relaxed rules refuse statically.
runner <- load_runner()
policy <- runner$compile_policy(rules, test_packages)
mask <- runner$make_mask(policy)
script_env <- new.env(parent = mask)
in_script <- function(text) eval(str2lang(text), script_env)

case("the mask binds the relaxed functions in place of their stubs", {
  expect_identical(in_script("do.call(rbind, list(1:2, 3:4))"), rbind(1:2, 3:4))
  expect_identical(in_script("do.call('paste', list('a', 'b', sep = '-'))"), "a-b")
  expect_identical(in_script("match.fun('sum')(1:3)"), 6L)
  expect_identical(in_script("local({ a <- 2; a * 3 })"), 6)
})
case("do.call refuses forbidden, computed-away and call-reading names, envir and loaders", {
  expect_error(in_script("do.call('system', list('id'))"), "do.call\\(\\) of 'system' is not available")
  expect_error(in_script("do.call('sapply', list(1, 'system'))"), "do.call\\(\\) of 'sapply'")
  expect_error(in_script("do.call('<<-', list(quote(x), 1))"), "do.call\\(\\) of '<<-'")
  expect_error(in_script("do.call(rbind, list(1), envir = new.env())"), "envir")
  expect_error(in_script("do.call(library, list('stats'))"), "package loader")
  expect_error(in_script("do.call(loadNamespace, list('stats'))"), "package loader")
})
case("do.call passes calls in args as values and never evaluates them", {
  expect_identical(in_script("do.call(identity, list(quote(stop('evaluated'))))"), quote(stop("evaluated")))
})
case("do.call looks a name up from its caller, so a forbidden one finds the mask's stub", {
  env <- new.env(parent = script_env)
  assign("helper", function() "mine", envir = env)
  expect_identical(eval(quote(do.call("helper", list())), env), "mine")
})
case("match.fun refuses forbidden and call-reading names and returns functions as given", {
  expect_error(in_script("match.fun('system')"), "match.fun\\(\\) of 'system'")
  expect_error(in_script("match.fun('library')"), "match.fun\\(\\) of 'library'")
  expect_identical(in_script("match.fun(mean)"), mean)
})
case("local takes no environment and evaluates in a child of its caller", {
  expect_error(in_script("local(1, envir = new.env())"), "unused argument")
  in_script("outer_value <- 5")
  expect_identical(in_script("local(outer_value + 1)"), 6)
  expect_identical(exists("inner_only", envir = script_env), FALSE)
  in_script("local(inner_only <- 1)")
  expect_identical(exists("inner_only", envir = script_env, inherits = FALSE), FALSE)
})
case("options refuses a denied option with a new value, by name or in a list", {
  expect_error(in_script("options(editor = 'not-the-current-editor')"), "the option 'editor' cannot be set")
  expect_error(in_script("options(list(pager = 'less'))"), "the option 'pager' cannot be set")
})
case("options restores saved settings, denied names included when unchanged", {
  old <- in_script("options(digits = 3)")
  expect_identical(getOption("digits"), 3L)
  in_script("options(digits = 7)")
  in_script("saved <- options()")
  expect_identical(in_script("options(saved)")$digits, 7L)
  expect_identical(getOption("digits"), 7L)
  expect_identical(names(old), "digits")
})
case("reformulate refuses forbidden names in its text, joined or alone", {
  runner$harden_reformulate(policy)
  expect_identical(deparse(stats::reformulate(c("a", "b"), "y")), "y ~ a + b")
  expect_error(stats::reformulate("system('id')"), "not even inside a formula")
  expect_identical(deparse(stats::reformulate(c("I(sys", "tem('id'))"), "y")), "y ~ I(sys + tem(\"id\"))")
  expect_error(stats::reformulate(c("I(system(", "'id'))")), "not even inside a formula")
  expect_error(stats::reformulate("x", response = "Sys.getenv()"), "not even inside a formula")
})
