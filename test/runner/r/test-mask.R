# mask.R: what the script's environment sees in place of forbidden names and of the functions
# that would run a shell command or hand out an environment.
runner <- load_runner()
policy <- runner$compile_policy(rules, test_packages)
mask <- runner$make_mask(policy)
in_script <- function(text) eval(str2lang(text), new.env(parent = mask))
refused <- function(text) {
  class(tryCatch(in_script(text), error = function(e) e))[[1L]]
}

case("every forbidden name is a stub that refuses with a classed error", {
  for (name in setdiff(policy$forbidden, names(runner$relaxed_replacements(policy)))) {
    expect_error(get(name, envir = mask)(), sprintf("'%s' is not available in jube-r", name))
  }
  expect_identical(refused("system('id')"), "jube_forbidden_error")
})
for (text in c("stats:::median(1)", "base:::system('id')")) {
  case(sprintf("::: refuses %s", text), expect_error(in_script(text), "':::' is not available"))
}
case("::: refuses a listed internal function of a package the script may not load", {
  expect_error(in_script("glmnet:::fid(c(1, 1), 1:2)"), "^':::' is not available in jube-r$")
})
glmnet_mask <- runner$make_mask(runner$compile_policy(rules, c(test_packages, "glmnet")))
in_glmnet <- function(text) eval(str2lang(text), new.env(parent = glmnet_mask))
real_fid <- get("fid", envir = asNamespace("glmnet"))
case("::: answers a listed internal function, called, as a value and through `:::` called by name", {
  expect_identical(in_glmnet("glmnet:::fid(c(1, 4, 5, 6), 1:5)"), real_fid(c(1, 4, 5, 6), 1:5))
  expect_identical(in_glmnet("glmnet:::fid"), real_fid)
  expect_identical(in_glmnet("glmnet:::`cox.path`"), get("cox.path", envir = asNamespace("glmnet")))
  expect_identical(in_glmnet("lapply(list(c(1, 1, 2)), glmnet:::fid, 1:3)"), list(real_fid(c(1, 1, 2), 1:3)))
  expect_identical(in_glmnet("{ f <- glmnet:::fid; f(c(2, 2), 1:2) }"), real_fid(c(2, 2), 1:2))
  expect_identical(in_glmnet("`:::`(\"glmnet\", \"fid\")"), real_fid)
  expect_identical(in_glmnet("{ g <- `:::`; g(\"glmnet\", fid) }"), real_fid)
})
case("::: refuses every other name, naming the listed ones of that package", {
  hint <- "Of glmnet's internal functions, a script may use only fid, cox.path, as glmnet:::name[.]$"
  expect_error(in_glmnet("glmnet:::someOther"), paste0("^':::' is not available in jube-r[.] ", hint))
  expect_error(in_glmnet("glmnet:::glmnet.path"), hint)
  expect_error(in_glmnet("stats:::Pillai"), "^':::' is not available in jube-r$")
  expect_error(in_glmnet("do.call(`:::`, list(\"stats\", \"Pillai\"))"), "^':::' is not available in jube-r$")
  expect_error(in_glmnet("`:::`(\"glmnet\", c(\"fid\", \"x\"))"), "^':::' is not available in jube-r[.] Of glmnet")
  expect_error(in_glmnet("`:::`(glmnet)"), "is not available in jube-r")
  expect_identical(refused("base:::system"), "jube_forbidden_error")
})
case(":: refuses a package that is not allowed", {
  expect_error(in_script("callr::r"), "package 'callr' is not available")
})
case(":: refuses a forbidden name", expect_error(in_script("base::system"), "'system' is not available"))
case(":: refuses xml2's network and deserializing exports, and answers its parsers", {
  xml2_mask <- runner$make_mask(runner$compile_policy(rules, c(test_packages, "xml2")))
  in_xml2 <- function(text) eval(str2lang(text), new.env(parent = xml2_mask))
  for (name in c("download_xml", "download_html", "xml_unserialize")) {
    expect_error(in_xml2(sprintf("xml2::%s", name)), sprintf("'%s' is not available in jube-r", name))
  }
  expect_identical(in_xml2("xml2::xml_text(xml2::read_xml('<a>1</a>'))"), "1")
})
case(":: refuses an exported environment", expect_error(in_script("base::.AutoloadEnv"), "is an environment"))
case(":: answers the runner's safe replacement", {
  expect_identical(in_script("base::attr"), runner$safe_attr)
  expect_identical(in_script("data.table::fread"), runner$safe_fread)
})
case(":: answers the listed exports of rlang, which is blocked, and refuses the rest", {
  expect_identical(in_script("rlang::sym"), rlang::sym)
  expect_identical(in_script("rlang::`%||%`"), rlang::`%||%`)
  expect_error(in_script("rlang::eval_tidy"), "'rlang::eval_tidy' is not available in jube-r: rlang is blocked")
  expect_error(in_script("rlang::env_get"), "Of rlang, a script may call only sym, syms,")
  expect_error(in_script("rlang::exec"), "the way do.call\\(\\) does without its checks")
  expect_identical(in_script("rlang::is_installed")("stats"), TRUE)
  expect_identical(in_script("rlang::is_installed")("processx"), FALSE)
})
case(":: passes anything else through", expect_identical(in_script("stats::median"), stats::median))

case("the mask binds every safe replacement of an allowed package", {
  wide <- runner$make_mask(runner$compile_policy(rules, c(test_packages, "purrr")))
  for (name in names(runner$safe_replacements)) {
    expect_identical(get(name, envir = wide, inherits = FALSE), runner$safe_replacements[[name]]$fun)
  }
})
case("purrr's attr_getter() is answered with a getter on the runner's attr()", {
  expect_identical(runner$safe_attr_getter("units")(structure(1, units = "kg")), "kg")
  holder <- structure(1, where = globalenv())
  expect_error(runner$safe_attr_getter("where")(holder), "attribute 'where' holds an environment")
})
case("a replacement of a package that is not allowed is left out of the mask", {
  narrow <- runner$make_mask(runner$compile_policy(rules, c("base", "utils", "methods")))
  expect_identical(exists("fread", envir = narrow, inherits = FALSE), FALSE)
})

env_holder <- structure(1, where = globalenv())
case("attr() refuses an environment-valued attribute and reads the others", {
  expect_error(runner$safe_attr(env_holder, "where"), "attribute 'where' holds an environment")
  expect_identical(runner$safe_attr(structure(1, a = 2), "a"), 2)
})
case("attributes() drops environment-valued attributes", {
  expect_identical(names(runner$safe_attributes(structure(env_holder, b = 1))), "b")
})
case("new() refuses an environment class", expect_error(in_script("new('environment')"), "environment class"))
case("data() refuses another library", expect_error(in_script("data(iris, lib.loc = '/tmp')"), "lib.loc"))
case("loadNamespace() loads but returns nothing", expect_identical(in_script("loadNamespace('stats')"), NULL))
case("fread() refuses a command and accepts literal text", {
  expect_error(runner$safe_fread(cmd = "id"), "shell command")
  expect_error(runner$safe_fread("id"), "shell command")
  expect_identical(nrow(runner$safe_fread("a,b\n1,2\n")), 1L)
})
