library(testthat)
library(jubeR)

test_check("jubeR")
