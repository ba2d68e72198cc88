# One invocation: Rscript --vanilla runner.R WORKDIR, the nonce on stdin (one line); or, started
# before the request (warm.R), WORKDIR --warm=PACKAGES and the nonce handed over the same pipe once
# the request's inputs are in WORKDIR. WORKDIR holds the script and input.json (written by the
# execute handler; their names are in seam.json); this writes the envelope there. stdout is only
# console text.

from_json <- get("fromJSON", envir = asNamespace("jsonlite"))

read_nonce <- function() {
  stdin_con <- file("stdin")
  nonce <- readLines(stdin_con, n = 1L, warn = FALSE)
  close(stdin_con)
  if (length(nonce) != 1L || !nzchar(nonce)) stop("jube-r runner: no nonce on stdin")
  nonce
}

main <- function(args) {
  workdir <- args[[1L]]
  warm <- warm_args(args[-1L])
  if (!is.null(warm)) warm_prepare(warm)
  nonce <- if (is.null(warm)) read_nonce() else warm_wait(workdir)
  # Absolute, so no path of the runner's depends on the directory the script's setwd() chose.
  if (!startsWith(workdir, "/")) workdir <- file.path(getwd(), workdir)
  envelope_path <- workdir_file(workdir, "envelope")
  header <- envelope_header(nonce, paste(R.version$major, R.version$minor, sep = "."))
  # simplifyVector = FALSE: jsonlite's simplification costs ~40 ms of start-up on every run.
  input <- check_input(from_json(workdir_file(workdir, "input"), simplifyVector = FALSE))
  script_path <- workdir_file(workdir, "script")
  checked <- if (isTRUE(input$testEscaped)) {
    list(exprs = parse(script_path, keep.source = TRUE, encoding = "UTF-8"), errors = list())
  } else {
    check_script(script_path, input$treeSitterSymbols)
  }
  if (length(checked$errors) > 0L) {
    write_envelope(envelope_path, header, rejection_fields(checked$errors))
    return(invisible())
  }
  write <- function(fields) write_envelope(envelope_path, header, fields)
  write(evaluate_script(checked$exprs, input, workdir, on_quit = write))
}
