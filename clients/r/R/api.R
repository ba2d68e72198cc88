# The plain API calls: each answers the parsed JSON body or signals a `jube_api_error` (HTTP) or a
# `jube_transport_error` (no answer), so a script can branch on the class.

as_client <- function(url, ...) {
  if (inherits(url, "jube_client")) url else new_client(url, ...)
}

jube_health <- function(url, ...) {
  api_get(as_client(url, ...), "/health", query = list(detail = "full"))
}

jube_packages <- function(url, ...) {
  api_get(as_client(url, ...), "/packages")
}

jube_validate <- function(code, url, ...) {
  if (!is.character(code) || length(code) != 1L || is.na(code)) stop("`code` must be one string", call. = FALSE)
  api_post(as_client(url, ...), "/validate", list(script = code))
}

jube_help <- function(topic, package = NULL, url, ...) {
  if (!is.character(topic) || length(topic) != 1L || is.na(topic)) stop("`topic` must be one string", call. = FALSE)
  api_get(as_client(url, ...), "/help", query = list(topic = topic, package = package))
}
