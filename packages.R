# The R packages a jube-r script can use: the single source of truth.
#
# Drives: the image build (r-image/Dockerfile installs r-cran-<lower-case name> from Debian for
# each), the package manifest (scripts/write-manifest.R, served by GET /packages) and the
# validator's allow-list (library(), require(), pkg::). Base R's own packages are always there.
#
# Never add a package that spawns processes or opens sockets for the caller (processx, callr,
# sys, curl, httr, ...): layers/rules/script-rules.json blocks those by name as well.
jube_r_packages <- c(
  "jsonlite",
  "dplyr",
  "tidyr",
  "data.table",
  "readr",
  "stringr",
  "lubridate",
  "purrr",
  "tibble",
  "zoo",
  "xts",
  "forecast",
  "ggplot2",
  "broom",
  "MASS",
  "Matrix",
  "survival",
  "glmnet",
  "ranger",
  "e1071",
  "ragg",
  "svglite",
  "xml2"
)
