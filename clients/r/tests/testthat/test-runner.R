protocol_fields <- c("success", "result", "stdout", "stderr", "messages", "warnings", "error", "error_type",
                     "retryable", "duration_ms")

expect_protocol <- function(result) {
  expect_true(is.list(result))
  expect_identical(names(result)[seq_along(protocol_fields)], protocol_fields)
  expect_false(anyDuplicated(names(result)) > 0L)
  for (field in c("stdout", "stderr", "messages", "warnings")) {
    expect_true(is.character(result[[field]]) && length(result[[field]]) == 1L && !is.na(result[[field]]))
  }
  expect_identical(result$retryable, !result$success && identical(result$error_type, "execution"))
  expect_true(is.numeric(result$duration_ms) && length(result$duration_ms) == 1L)
  if (result$success) {
    expect_null(result$error_type)
  } else {
    expect_true(result$error_type %in% c("execution", "interpreter"))
    expect_true(is.character(result$error) && nzchar(result$error))
  }
}

test_that("a script's value comes back as the R object it was", {
  runner <- jube_runner(stack_url("JUBER_TEST_URL"), tenant = "acme", credentials = FALSE)
  result <- runner$execute("sqrt(16)")
  expect_protocol(result)
  expect_true(result$success)
  expect_identical(result$result, 4)
  expect_identical(result$stdout, "[1] 4\n")
  expect_identical(runner$execute("c(a = 1L, b = 2L)")$result, c(a = 1L, b = 2L))
  expect_identical(runner$execute("factor(c('lo', 'hi'))")$result, factor(c("lo", "hi")))
  frame <- runner$execute("data.frame(x = 1:2, y = c('a', 'b'))")$result
  expect_identical(frame, data.frame(x = 1:2, y = c("a", "b")))
})

test_that("the marker result wins over the value, and context is bound as .context", {
  runner <- jube_runner(stack_url("JUBER_TEST_URL"), tenant = "acme", credentials = FALSE)
  marked <- runner$execute(paste0(
    "cat('<<<JUBE_RESULT_START>>>', '{\"total\": 6}', '<<<JUBE_RESULT_END>>>', sep = '')\n",
    "99"
  ))
  expect_identical(marked$result, list(total = 6L))
  with_context <- runner$execute("message('half'); warning('careful'); .context$n * 2", context = list(n = 21))
  expect_protocol(with_context)
  expect_equal(with_context$result, 42)
  expect_match(with_context$messages, "half")
  expect_match(with_context$warnings, "careful")
})

test_that("a failing script is an execution failure, returned and not signalled", {
  runner <- jube_runner(stack_url("JUBER_TEST_URL"), tenant = "acme", credentials = FALSE)
  failed <- runner$execute("stop('boom')")
  expect_protocol(failed)
  expect_false(failed$success)
  expect_identical(failed$error_type, "execution")
  expect_true(failed$retryable)
  expect_match(failed$error, "boom")
  expect_identical(failed$error_details$message, "boom")
  rejected <- runner$execute("system('id')")
  expect_protocol(rejected)
  expect_identical(rejected$error_type, "execution")
  expect_identical(rejected$validation$errors[[1]]$code, "CAPABILITY_NOT_AVAILABLE")
})

test_that("a script over its time limit is an execution failure", {
  runner <- jube_runner(stack_url("JUBER_TEST_URL"), tenant = "acme", credentials = FALSE, timeout = 1)
  slow <- runner$execute("Sys.sleep(5)")
  expect_protocol(slow)
  expect_false(slow$success)
  expect_identical(slow$error_type, "execution")
  expect_true(slow$timed_out)
})

test_that("stdout is cut at max_output_chars", {
  runner <- jube_runner(stack_url("JUBER_TEST_URL"), tenant = "acme", credentials = FALSE, max_output_chars = 50)
  long <- runner$execute("cat(strrep('x', 500))")
  expect_lt(nchar(long$stdout), 120)
  expect_match(long$stdout, "truncated by jubeR at 50 characters")
})

test_that("plots are kept as a list element the protocol has no slot for", {
  runner <- jube_runner(stack_url("JUBER_TEST_URL"), tenant = "acme", credentials = FALSE)
  drawn <- runner$execute("plot(1:10)")
  expect_true(drawn$success)
  expect_length(drawn$plots, 1L)
  expect_identical(drawn$plots[[1]]$mimeType, "image/png")
})

test_that("a stopped server is an interpreter failure, returned and not signalled", {
  runner <- jube_runner(stack_url("JUBER_TEST_STOPPED_URL"), tenant = "acme", credentials = FALSE)
  gone <- runner$execute("sqrt(16)")
  expect_protocol(gone)
  expect_false(gone$success)
  expect_identical(gone$error_type, "interpreter")
  expect_false(gone$retryable)
  expect_false(runner$policy()$sandboxed)
})

test_that("bad arguments to execute are returned as interpreter failures", {
  runner <- jube_runner(stack_url("JUBER_TEST_URL"), tenant = "acme", credentials = FALSE)
  expect_identical(runner$execute(c("1", "2"))$error_type, "interpreter")
  expect_identical(runner$execute("1", context = list(1))$error_type, "interpreter")
  expect_error(jube_runner(stack_url("JUBER_TEST_URL"), tenant = "acme", timeout = -1), "timeout")
  # The tenant is the execute route's path segment: no runner without one.
  expect_error(jube_runner(stack_url("JUBER_TEST_URL"), credentials = FALSE), "/t/\\{tenant\\}/execute")
})

test_that("policy() says backend, trust and sandboxed as /health does", {
  url <- stack_url("JUBER_TEST_URL")
  policy <- jube_runner(url, tenant = "acme", credentials = FALSE)$policy()
  health <- jube_health(url, credentials = FALSE)
  expect_identical(policy$backend, "jube-r")
  expect_identical(policy$trust, "untrusted-code")
  expect_identical(policy$sandboxed, health$sandbox$sandboxed)
  expect_true(policy$sandboxed)
  expect_identical(policy$layers, unlist(health$sandbox$layers))
  signed_url <- stack_url("JUBER_TEST_SIGNED_URL")
  signed <- jube_runner(signed_url, tenant = "acme", credentials = signed_credentials())$policy()
  expect_false(signed$sandboxed)
  expect_identical(signed$layers, c("fresh-rscript-per-call", "rlimits"))
})

test_that("throttles are waited out for Retry-After and the call then made once", {
  url <- stack_url("JUBER_TEST_SCRIPTED_URL")
  scripted_mode(url, "throttle-twice")
  result <- jube_runner(url, tenant = "acme", credentials = FALSE)$execute("sqrt(16)")
  expect_true(result$success)
  expect_identical(result$result, 4)
  expect_identical(scripted_count(url), 3L)
  expect_gte(result$throttled_seconds, 2)
})

test_that("a throttle that outlasts throttle_wait is an interpreter failure", {
  url <- stack_url("JUBER_TEST_SCRIPTED_URL")
  scripted_mode(url, "throttle-always")
  result <- jube_runner(url, tenant = "acme", credentials = FALSE, throttle_wait = 2)$execute("sqrt(16)")
  expect_protocol(result)
  expect_identical(result$error_type, "interpreter")
  expect_match(result$error, "THROTTLED")
  expect_identical(scripted_count(url), 3L)
})

test_that("a call that may have run is never sent again", {
  url <- stack_url("JUBER_TEST_SCRIPTED_URL")
  scripted_mode(url, "deadline")
  result <- jube_runner(url, tenant = "acme", credentials = FALSE)$execute("sqrt(16)")
  expect_identical(result$error_type, "interpreter")
  expect_match(result$error, "HTTP 504 EXECUTE_DEADLINE")
  expect_identical(result$http_status, 504L)
  expect_identical(scripted_count(url), 1L)
})

test_that("persistent = TRUE keeps the workspace between calls, close() ends it; persistent = FALSE keeps none", {
  url <- stack_url("JUBER_TEST_URL")
  kept <- jube_runner(url, tenant = "acme", credentials = FALSE, persistent = TRUE)
  expect_true(kept$policy()$persistent)
  expect_true(kept$execute("d <- subset(mtcars, cyl == 4); f <- function(x) mean(x)")$success)
  expect_equal(kept$execute("f(d$mpg)")$result, mean(mtcars$mpg[mtcars$cyl == 4]))
  expect_identical(kept$execute("exists('d')")$result, TRUE)
  expect_true(kept$close())
  expect_identical(kept$execute("exists('d')")$result, FALSE)
  fresh <- jube_runner(url, tenant = "acme", credentials = FALSE)
  expect_false(fresh$policy()$persistent)
  expect_true(fresh$execute("d <- 1")$success)
  expect_identical(fresh$execute("exists('d')")$result, FALSE)
  expect_error(jube_runner(url, tenant = "acme", session = "s-1"), "persistent = TRUE")
})
