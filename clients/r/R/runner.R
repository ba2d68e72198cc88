# A dsprrr code runner backed by a jube-r API: execute(code, context) is one POST /t/{tenant}/execute,
# policy() comes from GET /health. Nothing is signalled from execute(): a script's failure is an
# `execution` result, the service's (HTTP errors, no answer) an `interpreter` one.

# A throttle without a usable Retry-After is waited out this long. Throttles are waited out at
# most `throttle_wait` seconds in all per call: a 503 THROTTLED means Lambda refused the invoke,
# so the script never ran and sending it again cannot run it twice.
throttle_wait_default_seconds <- 1

# What the HTTP call may take beyond the script's own limit (cold start, staging, the response).
http_margin_seconds <- 30

retry_after_seconds <- function(headers) {
  value <- suppressWarnings(as.numeric(headers[["retry-after"]] %||% NA))
  if (is.na(value) || value < 0) throttle_wait_default_seconds else value
}

is_throttle <- function(response) {
  response$status == 429L || (response$status == 503L && identical(response$body$code, "THROTTLED"))
}

check_runner_args <- function(timeout, max_output_chars, throttle_wait) {
  positive <- function(x) is.numeric(x) && length(x) == 1L && !is.na(x) && x > 0
  if (!positive(timeout)) stop("`timeout` must be a positive number of seconds", call. = FALSE)
  if (!positive(max_output_chars)) stop("`max_output_chars` must be a positive integer", call. = FALSE)
  if (!positive(throttle_wait)) stop("`throttle_wait` must be a positive number of seconds", call. = FALSE)
}

# Why `code` or `context` cannot be sent, or NULL.
input_problem <- function(code, context) {
  if (!is.character(code) || length(code) != 1L || is.na(code)) return("`code` must be one non-missing string")
  unnamed <- length(context) > 0L && (is.null(names(context)) || any(!nzchar(names(context))))
  if (!is.list(context) || unnamed) return("`context` must be a named list")
  NULL
}

# The tenant's execute route (docs/api.md): the tenant is in the path, where IAM binds it to the
# caller's identity.
execute_path <- function(tenant) {
  paste0("/t/", curl::curl_escape(tenant), "/execute")
}

# POST /t/{tenant}/execute, waiting out throttles: list(response, waited) or a transport error condition.
post_execute <- function(client, body, http_timeout, throttle_wait) {
  waited <- 0
  repeat {
    response <- tryCatch(
      http_call(client, "POST", execute_path(client$tenant), body = body, timeout_seconds = http_timeout),
      jube_transport_error = function(e) e
    )
    if (inherits(response, "jube_transport_error") || !is_throttle(response)) break
    pause <- retry_after_seconds(response$headers)
    if (waited + pause > throttle_wait) {
      response$waited_out <- TRUE
      break
    }
    Sys.sleep(pause)
    waited <- waited + pause
  }
  list(response = response, waited = waited)
}

execute_on <- function(client, code, context, timeout, max_output_chars, throttle_wait) {
  started <- Sys.time()
  elapsed_ms <- function() round(as.numeric(difftime(Sys.time(), started, units = "secs")) * 1000, 2)
  problem <- input_problem(code, context)
  if (!is.null(problem)) return(interpreter_failure(problem, elapsed_ms()))
  body <- list(script = code, timeoutSeconds = timeout)
  if (length(context) > 0L) body$context <- context
  sent <- post_execute(client, body, timeout + http_margin_seconds, throttle_wait)
  response <- sent$response
  if (inherits(response, "jube_transport_error")) return(interpreter_failure(conditionMessage(response), elapsed_ms()))
  if (isTRUE(response$waited_out)) {
    message <- sprintf("%s (waited %.0f s of at most %.0f s for it to clear)", http_problem(response), sent$waited,
                       throttle_wait)
    return(interpreter_failure(message, elapsed_ms(), http_status = response$status, http_body = response$body))
  }
  if (response$status != 200L || !is.list(response$body)) {
    return(interpreter_failure(http_problem(response), elapsed_ms(), http_status = response$status,
                               http_body = response$body))
  }
  result <- runner_result(response$body, max_output_chars)
  if (sent$waited > 0) result$throttled_seconds <- sent$waited
  result
}

policy_of <- function(client, persistent) {
  health <- tryCatch(api_get(client, "/health"), error = function(e) e)
  if (inherits(health, "error")) {
    return(list(backend = "jube-r", trust = "untrusted-code", sandboxed = FALSE, persistent = persistent,
                url = client$url, layers = character(), health_error = conditionMessage(health)))
  }
  list(
    backend = "jube-r",
    trust = "untrusted-code",
    sandboxed = isTRUE(health$sandbox$sandboxed),
    persistent = persistent,
    url = client$url,
    layers = as.character(unlist(health$sandbox$layers)),
    layers_source = health$sandbox$source,
    isolation = health$isolation,
    limits = health$limits
  )
}

# A session id for a persistent runner: X-Jube-Session's characters, random enough never to meet another.
new_session_id <- function() {
  paste0("r-", paste(sample(c(0:9, letters[1:6]), 32L, replace = TRUE), collapse = ""))
}

# DELETE /t/{tenant}/session: the session's workspace goes. TRUE when there was one.
end_session <- function(client) {
  path <- paste0("/t/", curl::curl_escape(client$tenant), "/session")
  response <- http_call(client, "DELETE", path)
  if (response$status != 200L) stop(api_error(response))
  isTRUE(response$body$deleted)
}

jube_runner <- function(url, ..., timeout = 10, max_output_chars = 100000L, tenant = NULL, persistent = FALSE,
                        session = NULL, credentials = NULL, region = NULL, throttle_wait = 30) {
  check_runner_args(timeout, max_output_chars, throttle_wait)
  if (!isTRUE(persistent) && !isFALSE(persistent)) stop("`persistent` must be TRUE or FALSE", call. = FALSE)
  # A session keeps its workspace between calls: only a persistent runner has one.
  if (!persistent && !is.null(session)) {
    stop("`session` names the workspace a persistent runner keeps: use persistent = TRUE with it", call. = FALSE)
  }
  if (persistent && is.null(session)) session <- new_session_id()
  if (!is.character(tenant) || length(tenant) != 1L || is.na(tenant) || !nzchar(tenant)) {
    stop("`tenant` must be one string: the runner calls /t/{tenant}/execute (where the deployment binds ",
         "tenants to identities, the tenant the credentials' role session is named after)", call. = FALSE)
  }
  client <- new_client(url, tenant = tenant, session = session, credentials = credentials, region = region)
  max_output_chars <- as.integer(max_output_chars)
  structure(
    list(
      execute = function(code, context = list()) {
        execute_on(client, code, context, timeout, max_output_chars, throttle_wait)
      },
      policy = function() policy_of(client, persistent),
      # Ends the session: its workspace is deleted, and the next execute() starts from nothing.
      close = function() {
        if (persistent) invisible(end_session(client)) else invisible(FALSE)
      },
      client = client
    ),
    class = "jube_runner"
  )
}

print.jube_runner <- function(x, ...) {
  cat("<jube_runner> ", x$client$url, if (!is.null(x$client$credentials)) " (SigV4)" else "", "\n", sep = "")
  invisible(x)
}
