# Writes the help pages GET /help serves, next to the package manifest: every Rd page of every
# package declared in packages.R and of R's base packages, rendered to plain text here, once, so a
# lookup never starts R. Each page leads with its title, usage and arguments (what a model needs
# to call the function) and is cut at MAX_PAGE_BYTES, which bounds the file.
# Usage: Rscript scripts/write-help.R PACKAGES_R OUT_JSON_GZ
args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 2L) stop("usage: write-help.R PACKAGES_R OUT_JSON_GZ", call. = FALSE)
env <- new.env()
sys.source(args[[1]], envir = env)
declared <- get("jube_r_packages", envir = env)
base_help <- c("base", "stats", "utils", "graphics", "grDevices", "methods")
max_page_bytes <- 32768L
first_sections <- c("Usage", "Arguments")
# Plain quotes: the text is for models and terminals, not typeset.
options(useFancyQuotes = FALSE)

render <- function(rd) {
  out <- character()
  con <- textConnection("out", "w", local = TRUE)
  on.exit(close(con))
  tools::Rd2txt(rd, out = con, options = list(underline_titles = FALSE, width = 80L, itemBullet = "* "))
  out
}

# Rd2txt puts a section's name alone at column 0 ("Usage:"); the lines before the first are the title.
lead_with_usage <- function(lines) {
  heads <- grep("^[A-Z][^ ].*:$|^[A-Z][A-Za-z ]*:$", lines)
  if (length(heads) == 0L) return(lines)
  starts <- c(heads, length(lines) + 1L)
  sections <- lapply(seq_along(heads), function(i) lines[starts[[i]]:(starts[[i + 1L]] - 1L)])
  names(sections) <- sub(":$", "", lines[heads])
  order <- c(intersect(first_sections, names(sections)), setdiff(names(sections), first_sections))
  c(lines[seq_len(heads[[1]] - 1L)], unlist(sections[order], use.names = FALSE))
}

cut_page <- function(text) {
  bytes <- nchar(text, type = "bytes")
  if (bytes <= max_page_bytes) return(list(text = text, truncated = FALSE))
  marker <- sprintf("\n[... help page cut at %d of %d bytes ...]\n", max_page_bytes, bytes)
  room <- max_page_bytes - nchar(marker, type = "bytes")
  lines <- strsplit(text, "\n", fixed = TRUE)[[1]]
  kept <- lines[cumsum(nchar(lines, type = "bytes") + 1L) <= room]
  list(text = paste0(paste(kept, collapse = "\n"), marker), truncated = TRUE)
}

rd_tag <- function(rd, tag) {
  vapply(Filter(function(x) identical(attr(x, "Rd_tag"), tag), rd), function(x) paste(unlist(x), collapse = ""), "")
}

page_of <- function(rd, file, package) {
  text <- paste(lead_with_usage(render(rd)), collapse = "\n")
  cut <- cut_page(sub("^\n+", "", text))
  title <- gsub("\\s+", " ", trimws(paste(rd_tag(rd, "\\title"), collapse = " ")))
  list(
    package = package,
    name = sub("\\.[Rr]d$", "", file),
    title = title,
    aliases = I(unique(trimws(rd_tag(rd, "\\alias")))),
    text = cut$text,
    truncated = cut$truncated
  )
}

packages <- unique(c(declared, base_help))
missing <- packages[!vapply(packages, requireNamespace, logical(1), quietly = TRUE)]
if (length(missing) > 0L) {
  stop("packages.R declares packages that are not installed: ", paste(missing, collapse = ", "), call. = FALSE)
}
pages <- unlist(lapply(sort(packages), function(package) {
  db <- tools::Rd_db(package)
  lapply(sort(names(db)), function(file) page_of(db[[file]], file, package))
}), recursive = FALSE)
help <- list(
  rVersion = paste(R.version$major, R.version$minor, sep = "."),
  maxPageBytes = max_page_bytes,
  pages = pages
)
out <- gzfile(args[[2]], "wb")
writeLines(jsonlite::toJSON(help, auto_unbox = TRUE), out, useBytes = TRUE)
close(out)
