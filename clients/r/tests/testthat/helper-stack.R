# The servers test/integration/r-client.test.ts starts for these tests, by URL in the environment:
# a local stack (its /health declares a layer below R), a second one that checks SigV4 signatures
# (and declares none), a port nothing listens on, and a scripted server that throttles.
stack_url <- function(name) {
  url <- Sys.getenv(name)
  skip_if(!nzchar(url), paste(name, "is not set: run these through test/integration/r-client.test.ts"))
  url
}

signed_credentials <- function() {
  jube_credentials(
    access_key_id = Sys.getenv("JUBER_TEST_KEY_ID"),
    secret_access_key = Sys.getenv("JUBER_TEST_SECRET"),
    session_token = "",
    region = Sys.getenv("JUBER_TEST_REGION")
  )
}

# The scripted server's count of /execute requests since its last reset.
scripted_count <- function(url) {
  jsonlite::fromJSON(rawToChar(curl::curl_fetch_memory(paste0(url, "/count"))$content))$execute
}

scripted_mode <- function(url, mode) {
  curl::curl_fetch_memory(paste0(url, "/mode/", mode))
  invisible(NULL)
}
