# A small analysis: summary statistics of a simulated sample, returned as a structured result.
# `n` is bound by the caller (`--var n=100` on the command line, `variables` over HTTP).
set.seed(42)
x <- rnorm(n, mean = 10, sd = 2)
summary(x)
cat("<<<JUBE_RESULT_START>>>\n")
cat(jsonlite::toJSON(list(n = n, mean = round(mean(x), 3), sd = round(sd(x), 3)), auto_unbox = TRUE), "\n")
cat("<<<JUBE_RESULT_END>>>\n")
