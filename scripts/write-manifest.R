# Writes the package manifest GET /packages serves: every package this R library holds, with the
# version actually installed and where it comes from (declared in packages.R, base R, or installed
# as a dependency or one of R's recommended packages); `installed` names them all, so no check
# calls an installed package "not installed". Which of them a script may load is the rules'
# decision (layers/rules/rules.ts allowedPackages: all but packages.blocked).
# Usage: Rscript scripts/write-manifest.R PACKAGES_R OUT_JSON
args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 2L) stop("usage: write-manifest.R PACKAGES_R OUT_JSON", call. = FALSE)
env <- new.env()
sys.source(args[[1]], envir = env)
declared <- get("jube_r_packages", envir = env)
base_pkgs <- rownames(installed.packages(priority = "base"))
missing <- declared[!vapply(declared, requireNamespace, logical(1), quietly = TRUE)]
if (length(missing) > 0L) {
  stop("packages.R declares packages that are not installed: ", paste(missing, collapse = ", "), call. = FALSE)
}
entry <- function(name, source) {
  list(name = name, version = as.character(utils::packageVersion(name)), source = source)
}
manifest <- list(
  rVersion = paste(R.version$major, R.version$minor, sep = "."),
  declared = declared,
  installed = sort(unique(rownames(installed.packages()))),
  packages = c(
    lapply(sort(declared), entry, source = "packages.R"),
    lapply(sort(setdiff(base_pkgs, declared)), entry, source = "base"),
    lapply(sort(setdiff(rownames(installed.packages()), c(declared, base_pkgs))), entry, source = "dependency")
  )
)
writeLines(jsonlite::toJSON(manifest, auto_unbox = TRUE, pretty = TRUE), args[[2]])
