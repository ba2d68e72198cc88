# One HTTP exchange with a jube-r API: JSON in, JSON out, signed when there are credentials.
# Transport failures are signalled as `jube_transport_error`; an HTTP status is returned, never
# signalled, so each caller decides what a non-200 means.

# credentials: a list signs, FALSE never does, NULL takes the environment's for any host but this
# machine's own (the local stack checks signatures only when told to, with its own key pair).
new_client <- function(url, tenant = NULL, session = NULL, credentials = NULL, region = NULL) {
  if (!is.character(url) || length(url) != 1L || !grepl("^https?://[^/]+", url)) {
    stop("`url` must be one http(s) URL, such as http://127.0.0.1:8080", call. = FALSE)
  }
  if (is.null(credentials) && !is_loopback(url)) credentials <- jube_credentials()
  if (!is.null(credentials) && !isFALSE(credentials)) {
    if (!is.list(credentials) || is.null(credentials$access_key_id) || is.null(credentials$secret_access_key)) {
      stop("`credentials` must be a list with access_key_id and secret_access_key (and session_token)", call. = FALSE)
    }
    region <- region %||% credentials$region %||% region_of_host(url)
    if (is.null(region)) stop("set `region` (or AWS_REGION) to sign requests for ", url, call. = FALSE)
  }
  structure(
    list(
      url = sub("/+$", "", url),
      tenant = tenant,
      session = session,
      credentials = if (isFALSE(credentials)) NULL else credentials,
      region = region
    ),
    class = "jube_client"
  )
}

is_loopback <- function(url) {
  grepl("^https?://(127[.][0-9.]+|localhost|\\[::1\\])(:[0-9]+)?(/|$)", url)
}

`%||%` <- function(a, b) if (is.null(a)) b else a

# https://{api-id}.execute-api.{region}.amazonaws.com names its region; a private DNS name too.
region_of_host <- function(url) {
  match <- regmatches(url, regexec("execute-api[.]([a-z]{2}(-[a-z]+)+-[0-9])[.]", url))[[1]]
  if (length(match) >= 2L) match[[2]] else NULL
}

to_json <- function(x) {
  as.character(jsonlite::toJSON(x, auto_unbox = TRUE, null = "null", na = "null", digits = NA, dataframe = "rows"))
}

transport_error <- function(message) {
  structure(class = c("jube_transport_error", "error", "condition"), list(message = message, call = NULL))
}

# list(status, headers (lower-case names), body (parsed JSON or NULL), text).
http_call <- function(client, method, path, query = list(), body = NULL, timeout_seconds = 60) {
  text_body <- if (is.null(body)) "" else to_json(body)
  query <- Filter(Negate(is.null), query)
  url <- paste0(client$url, path)
  if (length(query) > 0L) {
    url <- paste0(url, "?", paste(uri_encode(names(query)), uri_encode(unlist(query)), sep = "=", collapse = "&"))
  }
  headers <- c(Accept = "application/json")
  if (!is.null(body)) headers[["Content-Type"]] <- "application/json"
  if (!is.null(client$session)) headers[["X-Jube-Session"]] <- client$session
  if (!is.null(client$credentials)) {
    host <- sub("^https?://([^/]+).*$", "\\1", client$url)
    base_path <- sub("^https?://[^/]+", "", client$url)
    headers <- c(headers, sigv4_headers(method, host, paste0(base_path, path), query, text_body,
                                        client$credentials, client$region))
  }
  handle <- curl::new_handle()
  curl::handle_setopt(handle, customrequest = method, timeout_ms = as.integer(timeout_seconds * 1000),
                      connecttimeout_ms = 10000L, followlocation = FALSE)
  if (!is.null(body)) curl::handle_setopt(handle, postfields = text_body)
  curl::handle_setheaders(handle, .list = as.list(headers))
  response <- tryCatch(curl::curl_fetch_memory(url, handle = handle), error = function(e) {
    stop(transport_error(sprintf("%s %s failed: %s", method, url, conditionMessage(e))))
  })
  text <- rawToChar(response$content)
  Encoding(text) <- "UTF-8"
  parsed <- tryCatch(jsonlite::fromJSON(text, simplifyVector = FALSE), error = function(e) NULL)
  response_headers <- curl::parse_headers_list(response$headers)
  list(status = response$status_code, headers = response_headers, body = parsed, text = text)
}

# The API's error body as one line: "HTTP 404 HELP_TOPIC_NOT_FOUND: no help page ...".
http_problem <- function(response) {
  code <- response$body$code %||% "no error code"
  message <- response$body$message %||% substr(response$text, 1L, 500L)
  sprintf("HTTP %d %s: %s", response$status, code, message)
}

api_error <- function(response) {
  structure(
    class = c("jube_api_error", "error", "condition"),
    list(message = http_problem(response), call = NULL, status = response$status, body = response$body)
  )
}

# GET or POST where anything but 200 is an error condition (for the plain API functions).
api_get <- function(client, path, query = list(), timeout_seconds = 60) {
  response <- http_call(client, "GET", path, query = query, timeout_seconds = timeout_seconds)
  if (response$status != 200L) stop(api_error(response))
  response$body
}

api_post <- function(client, path, body, timeout_seconds = 60) {
  response <- http_call(client, "POST", path, body = body, timeout_seconds = timeout_seconds)
  if (response$status != 200L) stop(api_error(response))
  response$body
}
