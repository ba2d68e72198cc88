# Evaluation (DESIGN.md section 3, layer 6): the script's top-level expressions one by one in a
# fresh environment under the mask, under setTimeLimit, autoprinting as the console does, with
# warnings collected (capped) and the first error ending the script. Returns the envelope fields.

# Captured when the runner loads: harden_runtime() replaces base's setTimeLimit with a stub, and
# the script may shadow the others in its own environment.
enable_jit <- get("enableJIT", envir = asNamespace("compiler"))
subset2 <- base::.subset2
set_time_limit <- base::setTimeLimit

# Where the i-th top-level expression starts in the script (its srcref), 1-based.
expression_position <- function(exprs, i) {
  ref <- attr(exprs, "srcref")[[i]]
  list(line = ref[[1L]], column = ref[[5L]])
}

# Warnings in order while both the count and the byte caps allow; the rest are only counted.
new_warning_log <- function(caps) {
  kept <- character()
  dropped <- 0L
  bytes <- 0
  list(
    record = function(w) {
      text <- cap_string(paste(subset2(w, "message"), collapse = "\n"), caps$warningBytes)
      size <- nchar(text, type = "bytes")
      if (length(kept) < caps$warnings && bytes + size <= caps$warningBytes) {
        kept[[length(kept) + 1L]] <<- text
        bytes <<- bytes + size
      } else {
        dropped <<- dropped + 1L
      }
      invokeRestart("muffleWarning")
    },
    fields = function() list(warnings = as.list(kept), warningsDropped = dropped)
  )
}

format_error <- function(e, max_bytes) {
  msg <- subset2(e, "message")
  msg <- if (is.character(msg) && length(msg) >= 1L) paste(msg, collapse = "\n") else "an error without a message"
  call <- subset2(e, "call")
  # stop() at the script's top level reports the loop's eval() as its call; R's console says "Error:".
  text <- if (is.call(call) && !identical(call, quote(eval(expr, script_env)))) {
    paste0("Error in ", paste(deparse(call, nlines = 1L, width.cutoff = 80L), collapse = ""), ": ", msg)
  } else {
    paste0("Error: ", msg)
  }
  cap_string(text, max_bytes)
}

# The outcome of an error that ended the script: the R time limit, or the script's own error.
error_outcome <- function(e, started, timeout, caps) {
  msg <- subset2(e, "message")
  # A script can stop("reached elapsed time limit") itself; only a limit that was reached counts.
  used <- proc.time() - started
  reached <- max(used[["elapsed"]], used[["user.self"]] + used[["sys.self"]]) >= timeout * 0.9
  if (reached && is.character(msg) && length(msg) == 1L && grepl("^reached (elapsed|CPU) time limit", msg)) {
    message <- sprintf("script exceeded its %d s limit (R time limit)", as.integer(timeout))
    return(list(status = "error", error = message, timedOut = TRUE))
  }
  list(status = "error", error = format_error(e, caps$errorBytes), timedOut = FALSE)
}

# input$testEscaped (JUBE_R_TEST_ESCAPED_RUNNER, refused by a deployed function): the script runs
# as one that beat the R layer would, with the real functions in reach (no mask, no hardening),
# so tests can show what the layers below R hold on their own. The capsule is armed either way.
evaluate_script <- function(exprs, policy, input, workdir) {
  timeout <- as.numeric(input$timeoutSeconds)
  caps <- input$caps
  escaped <- isTRUE(input$testEscaped)
  script_env <- new.env(parent = if (escaped) globalenv() else make_mask(policy))
  sandbox <- "not armed"
  warnings <- new_warning_log(caps)
  outcome <- list(status = "ok", error = NULL, timedOut = FALSE)
  started <- proc.time()
  # Messages join stdout, so console text and messages keep their order.
  sink(stdout(), type = "message")
  on.exit(sink(type = "message"), add = TRUE)
  on.exit(set_time_limit(), add = TRUE)
  tryCatch(
    withCallingHandlers(
      {
        if (!escaped) harden_runtime(policy)
        # The handler starts R with the JIT off so the runner's own functions are not compiled
        # (about 100 ms); the script gets R's default level back.
        enable_jit(3L)
        set_time_limit(cpu = timeout, elapsed = timeout, transient = FALSE)
        bind_inputs(script_env, input, workdir)
        sandbox <- arm_sandbox()
        for (i in seq_along(exprs)) {
          expr <- exprs[[i]]
          # format_error() recognises this exact call as "the script's top level".
          shown <- withVisible(eval(expr, script_env))
          if (shown$visible) {
            print_env <- new.env(parent = script_env)
            assign(".jube_value", shown$value, envir = print_env)
            eval(quote(print(.jube_value)), print_env)
          }
        }
        set_time_limit()
      },
      warning = warnings$record
    ),
    error = function(e) {
      set_time_limit()
      outcome <<- error_outcome(e, started, timeout, caps)
    }
  )
  set_time_limit()
  flush(stdout())
  c(outcome, warnings$fields(), list(sandbox = sandbox))
}
