# guards-attr.R: the mask's attribute setters refuse an environment that is not the script's.
use_script_sandbox()
assign("outside_env", asNamespace("stats"), envir = script_env)
in_script("f <- y ~ x")

refusals <- c(
  "attr(f, '.Environment') <- outside_env",
  "attr(f, 'anything') <- outside_env",
  "attributes(f) <- list(class = 'formula', .Environment = outside_env)",
  "mostattributes(f) <- list(.Environment = outside_env)",
  "structure(f, .Environment = outside_env)"
)
for (text in refusals) {
  case(sprintf("%s is refused", text), expect_error(in_script(text), "attribute '[.a-zA-Z]+': an environment outside"))
}
case("the setters still set ordinary attributes and the script's own environments", {
  in_script("x <- 1")
  in_script("attr(x, 'units') <- 'kg'")
  expect_identical(attr(in_script("x"), "units"), "kg")
  in_script("attributes(x) <- list(units = 'm')")
  expect_identical(attributes(in_script("x")), list(units = "m"))
  expect_identical(attr(in_script("structure(1, u = 2)"), "u"), 2)
  in_script("e <- new.env()")
  in_script("attr(f, '.Environment') <- e")
  expect_identical(attr(in_script("f"), ".Environment"), in_script("e"))
})
case("the mask binds the setters, and `base::` answers them", {
  expect_identical(get("attr<-", envir = mask), runner$safe_attr_assign)
  expect_identical(in_script("base::structure"), runner$safe_structure)
})

# `[[<-` and `[<-` of formulas, registered in base by guard_formula_replacement() (harden_runtime() calls it).
runner$guard_formula_replacement()
package_formula <- local(y ~ log(x), envir = asNamespace("stats"))
assign("pf", package_formula, envir = script_env)
for (text in c("pf[[3]] <- quote(z)", "pf[2] <- list(quote(z))", "pf[[3]][[1]] <- quote(median)")) {
  case(sprintf("%s of a package's formula from the script is refused", text), {
    expect_error(in_script(text), "changing a formula or quosure that package code made")
  })
}
case("the script changes its own formulas and quosures as before, keeping class and environment", {
  in_script("g <- y ~ x")
  in_script("g[[3]] <- quote(x + z)")
  expect_identical(in_script("deparse(g)"), "y ~ x + z")
  expect_identical(in_script("class(g)"), "formula")
  expect_identical(environment(in_script("g")), script_env)
  in_script("q <- rlang::quo(a + 1)")
  in_script("q[[2]] <- quote(a * 10)")
  expect_identical(rlang::eval_tidy(in_script("q"), list(a = 2)), 20)
})
case("package code changes its own formulas as before", {
  changed <- package_formula
  changed[[3]] <- quote(z)
  expect_identical(deparse(changed), "y ~ z")
})
