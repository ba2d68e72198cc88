# AWS Signature Version 4 for API Gateway's IAM authorization (service execute-api), as
# https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html describes it:
# canonical request, string to sign, a key derived from the secret by date, region and service.

sigv4_service <- "execute-api"

hmac_raw <- function(key, text) {
  digest::hmac(key, charToRaw(enc2utf8(text)), algo = "sha256", serialize = FALSE, raw = TRUE)
}

sha256_hex <- function(text) {
  bytes <- if (is.raw(text)) text else charToRaw(enc2utf8(text))
  digest::digest(bytes, algo = "sha256", serialize = FALSE)
}

# RFC 3986 percent-encoding of everything but the unreserved characters, as SigV4 requires.
uri_encode <- function(x) {
  vapply(x, function(s) {
    bytes <- charToRaw(enc2utf8(s))
    keep <- grepl("[A-Za-z0-9_.~-]", rawToChar(bytes, multiple = TRUE))
    paste0(ifelse(keep, rawToChar(bytes, multiple = TRUE), sprintf("%%%02X", as.integer(bytes))), collapse = "")
  }, character(1), USE.NAMES = FALSE)
}

canonical_query <- function(query) {
  if (length(query) == 0L) return("")
  keys <- uri_encode(names(query))
  values <- uri_encode(as.character(unlist(query, use.names = FALSE)))
  ord <- order(keys, values, method = "radix")
  paste(keys[ord], values[ord], sep = "=", collapse = "&")
}

sigv4_headers <- function(method, host, path, query, body, credentials, region, now = Sys.time()) {
  amz_date <- format(now, "%Y%m%dT%H%M%SZ", tz = "UTC")
  date <- substr(amz_date, 1L, 8L)
  payload_hash <- sha256_hex(body)
  headers <- c(host = host, `x-amz-date` = amz_date, `x-amz-content-sha256` = payload_hash)
  if (!is.null(credentials$session_token) && nzchar(credentials$session_token)) {
    headers[["x-amz-security-token"]] <- credentials$session_token
  }
  headers <- headers[order(names(headers), method = "radix")]
  signed <- paste(names(headers), collapse = ";")
  canonical <- paste(
    method,
    # Paths here are plain ASCII words; each segment is encoded as execute-api expects.
    paste(uri_encode(strsplit(path, "/", fixed = TRUE)[[1]]), collapse = "/"),
    canonical_query(query),
    paste0(names(headers), ":", trimws(headers), "\n", collapse = ""),
    signed,
    payload_hash,
    sep = "\n"
  )
  scope <- paste(date, region, sigv4_service, "aws4_request", sep = "/")
  to_sign <- paste("AWS4-HMAC-SHA256", amz_date, scope, sha256_hex(canonical), sep = "\n")
  key <- hmac_raw(charToRaw(paste0("AWS4", credentials$secret_access_key)), date)
  for (part in c(region, sigv4_service, "aws4_request")) key <- hmac_raw(key, part)
  signature <- paste(sprintf("%02x", as.integer(hmac_raw(key, to_sign))), collapse = "")
  authorization <- sprintf(
    "AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s",
    credentials$access_key_id, scope, signed, signature
  )
  c(headers[names(headers) != "host"], authorization = authorization)
}

# AWS credentials from the arguments or the environment; NULL when there are none.
jube_credentials <- function(access_key_id = Sys.getenv("AWS_ACCESS_KEY_ID"),
                             secret_access_key = Sys.getenv("AWS_SECRET_ACCESS_KEY"),
                             session_token = Sys.getenv("AWS_SESSION_TOKEN"),
                             region = Sys.getenv("AWS_REGION", Sys.getenv("AWS_DEFAULT_REGION"))) {
  if (!nzchar(access_key_id) || !nzchar(secret_access_key)) return(NULL)
  list(
    access_key_id = access_key_id,
    secret_access_key = secret_access_key,
    session_token = if (nzchar(session_token)) session_token else NULL,
    region = if (nzchar(region)) region else NULL
  )
}
