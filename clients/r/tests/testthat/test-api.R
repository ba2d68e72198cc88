test_that("jube_health, jube_packages and jube_validate answer from the stack", {
  url <- stack_url("JUBER_TEST_URL")
  health <- jube_health(url, credentials = FALSE)
  expect_identical(health$service, "jube-r")
  expect_true(is.logical(health$sandbox$sandboxed))
  packages <- vapply(jube_packages(url, credentials = FALSE)$packages, function(p) p$name, "")
  expect_true(all(c("dplyr", "stats") %in% packages))
  expect_true(jube_validate("mean(1:3)", url = url, credentials = FALSE)$valid)
  rejected <- jube_validate("system('id')", url = url, credentials = FALSE)
  expect_false(rejected$valid)
  expect_identical(rejected$errors[[1]]$code, "CAPABILITY_NOT_AVAILABLE")
})

test_that("jube_help returns a page with its usage first and names the nearest topics for a miss", {
  url <- stack_url("JUBER_TEST_URL")
  page <- jube_help("mutate", "dplyr", url = url, credentials = FALSE)
  expect_identical(page$page, "mutate")
  expect_match(page$text, "^Create, modify, and delete columns\n\nUsage:\n")
  expect_identical(jube_help("transmute", url = url, credentials = FALSE)$page, "mutate")
  miss <- tryCatch(jube_help("mutat", "dplyr", url = url, credentials = FALSE), jube_api_error = function(e) e)
  expect_s3_class(miss, "jube_api_error")
  expect_identical(miss$status, 404L)
  expect_identical(miss$body$code, "HELP_TOPIC_NOT_FOUND")
  expect_identical(miss$body$suggestions[[1]], list(topic = "mutate", package = "dplyr"))
  expect_identical(jube_help("[.data.frame", "base", url = url, credentials = FALSE)$package, "base")
})

test_that("requests signed with SigV4 pass the stack's verifier, and unsigned or wrongly signed ones do not", {
  url <- stack_url("JUBER_TEST_SIGNED_URL")
  credentials <- signed_credentials()
  expect_identical(jube_health(url, credentials = credentials)$service, "jube-r")
  expect_identical(jube_help("sd", url = url, credentials = credentials)$package, "stats")
  runner <- jube_runner(url, credentials = credentials, tenant = "acme", persistent = TRUE, session = "s-1")
  expect_identical(runner$execute("sqrt(16)", context = list(k = "v w"))$result, 4)
  unsigned <- tryCatch(jube_health(url, credentials = FALSE), jube_api_error = function(e) e)
  expect_identical(unsigned$status, 403L)
  wrong <- credentials
  wrong$secret_access_key <- "not-the-secret"
  refused <- jube_runner(url, tenant = "acme", credentials = wrong)$execute("1")
  expect_identical(refused$error_type, "interpreter")
  expect_match(refused$error, "HTTP 403")
  with_token <- credentials
  with_token$session_token <- "token/with+chars="
  expect_identical(jube_health(url, credentials = with_token)$service, "jube-r")
})

test_that("credentials come from the environment and the region from the host", {
  withr_env <- function(vars, code) {
    old <- Sys.getenv(names(vars), unset = NA)
    do.call(Sys.setenv, as.list(vars))
    on.exit(for (n in names(old)) if (is.na(old[[n]])) Sys.unsetenv(n) else do.call(Sys.setenv, as.list(old[n])))
    code
  }
  withr_env(c(AWS_ACCESS_KEY_ID = "AKID", AWS_SECRET_ACCESS_KEY = "secret", AWS_SESSION_TOKEN = "", AWS_REGION = ""), {
    expect_identical(jube_credentials()[c("access_key_id", "secret_access_key")],
                     list(access_key_id = "AKID", secret_access_key = "secret"))
    expect_null(jube_credentials()$session_token)
  })
  withr_env(c(AWS_ACCESS_KEY_ID = "", AWS_SECRET_ACCESS_KEY = ""), expect_null(jube_credentials()))
  client <- jubeR:::new_client("https://abc123.execute-api.eu-west-1.amazonaws.com/prod",
                               credentials = list(access_key_id = "a", secret_access_key = "b"))
  expect_identical(client$region, "eu-west-1")
  expect_error(jubeR:::new_client("http://10.0.0.1", credentials = list(access_key_id = "a", secret_access_key = "b")),
               "region")
})
