# Evaluation (docs/execute-runtime.md): the script's top-level expressions one by one in
# globalenv(), under setTimeLimit, autoprinting as the console does, with
# warnings and messages collected (conditions.R), plots captured (plots.R), the first error ending
# the script, and the last value converted (value.R). Returns the envelope fields.

# Captured when the runner loads, before any script code.
subset2 <- base::.subset2
set_time_limit <- base::setTimeLimit

# Where the i-th top-level expression starts in the script (its srcref), 1-based.
expression_position <- function(exprs, i) {
  ref <- attr(exprs, "srcref")[[i]]
  list(line = ref[[1L]], column = ref[[5L]])
}

# `message`: the whole chain of causes when the handler read it (error-cause.R), else e's own.
format_error <- function(e, max_bytes, message = NULL) {
  msg <- if (is.character(message) && length(message) == 1L && nzchar(message)) message else subset2(e, "message")
  msg <- if (is.character(msg) && length(msg) >= 1L) paste(msg, collapse = "\n") else "an error without a message"
  call <- subset2(e, "call")
  # stop() at the script's top level reports the loop's eval() as its call; R's console says "Error:".
  text <- if (is.call(call) && !identical(call, quote(eval(exprs[[i]], script_env)))) {
    paste0("Error in ", paste(deparse(call, nlines = 1L, width.cutoff = 80L), collapse = ""), ": ", msg)
  } else {
    paste0("Error: ", msg)
  }
  cap_string(text, max_bytes)
}

# The outcome of an error that ended the script: the R time limit, or the script's own error.
# `in_script`: the error came from the script's expressions, not from the runner's set-up before
# them (binding the inputs, arming the capsule), which is the service's failure ("interpreter").
# `details`: what the calling handler read (conditions.R error_details), or NULL.
error_outcome <- function(e, started, timeout, caps, in_script, details = NULL, srcfile = NULL) {
  msg <- subset2(e, "message")
  # A script can stop("reached elapsed time limit") itself; only a limit that was reached counts.
  used <- proc.time() - started
  reached <- max(used[["elapsed"]], used[["user.self"]] + used[["sys.self"]]) >= timeout * 0.9
  if (reached && is.character(msg) && length(msg) == 1L && grepl("^reached (elapsed|CPU) time limit", msg)) {
    # The handler words every timeout (functions/execute/output/response.ts, timeoutMessage).
    return(list(status = "error", error = NULL, timedOut = TRUE, errorType = "execution"))
  }
  error_type <- if (in_script) "execution" else "interpreter"
  text <- if (is.null(details)) format_error(e, caps$errorBytes) else error_text(e, details, srcfile, caps)
  list(status = "error", error = text, timedOut = FALSE, errorType = error_type)
}

# The script runs in globalenv(), as in a plain R session; the runner's own functions live in a
# private environment whose parent is base, so nothing the script binds or attaches changes what
# the runner calls. `input$testEscaped` (JUBE_R_TEST_ESCAPED_RUNNER, refused by a deployed function)
# only skips the re-validation (main.R): the tests' scripts then run exactly as written.
# `on_quit(fields)` writes the envelope when the script ends R itself (quit(), q(), from any frame):
# R runs exit finalizers before it exits (R_CleanUp), so the output, conditions and plots so far
# are answered, with the quit as the script's own error.
evaluate_script <- function(exprs, input, workdir, on_quit = NULL) {
  timeout <- as.numeric(input$timeoutSeconds)
  caps <- input$caps
  script_env <- globalenv()
  capsule <- "not armed"
  plot_capture <- "off"
  # The top-level expression running; 0 while the runner sets up.
  current <- 0L
  here <- function() if (current > 0L) expression_position(exprs, current) else list()
  conditions <- new_condition_logs(caps, here)
  details <- NULL
  last <- NULL
  notes <- character()
  add_note <- function(note) notes[[length(notes) + 1L]] <<- note
  outcome <- list(status = "ok", error = NULL, timedOut = FALSE)
  started <- proc.time()
  # The runner's side once the script is over, run once: from the end below or from the exit
  # finalizer when the script quit.
  finished <- FALSE
  finish <- function() {
    finished <<- TRUE
    # Once armed, the capsule holds any time limit to the run's deadline: this leaves the runner the
    # rest of it for what follows.
    set_time_limit()
    # The script's sink() and setwd() end with it: the value and the envelope below go where the
    # runner means them to.
    tryCatch(
      release_script_places(),
      error = function(e) add_note("the script's output sink or directory could not be reset")
    )
    # The script may have set warn or show.error.messages: the runner's own code after it runs with
    # R's defaults, or a warning of its own (warn = 2: an error) would stop it writing the envelope,
    # and a fault of its own would leave no trace on stderr.
    options(warn = 0L, show.error.messages = TRUE)
    close_plot_capture()
    plot_pages <- if (identical(plot_capture, "on")) {
      tryCatch(recorded_plot_pages(workdir, input$plots), error = function(e) list())
    }
    if (startsWith(plot_capture, "failed")) {
      add_note(paste("plot capture could not start:", sub("^failed: ", "", plot_capture)))
    }
    startup_note <- conditions$startup_note()
    if (!is.null(startup_note)) add_note(startup_note)
    # The last top-level value when R's console would show it: none after an invisible result (an
    # assignment, cat(), invisible()), as the console prints none.
    value <- if (identical(outcome$status, "ok") && isTRUE(last$visible)) {
      value_field(last, caps, timeout - elapsed_since(started), add_note)
    }
    session <- if (!is.null(input$session)) session_end(input$session, workdir, script_env, add_note)
    flush(stdout())
    c(
      outcome, if (!is.null(details)) list(errorDetails = details), conditions$fields(),
      if (!is.null(value)) list(value = value), if (!is.null(session)) list(session = session),
      list(notes = as.list(notes), plotCapture = plot_capture, capsule = capsule),
      if (!is.null(plot_pages)) list(plotPages = plot_pages)
    )
  }
  if (is.function(on_quit)) {
    reg.finalizer(environment(), onexit = TRUE, function(frame) {
      if (finished || current == 0L) return(invisible())
      set_time_limit()
      outcome <<- list(
        status = "error", error = quit_message(exprs, current), timedOut = FALSE, errorType = "execution"
      )
      on_quit(finish())
    })
  }
  # Messages join stdout, so console text and messages keep their order.
  sink(stdout(), type = "message")
  on.exit(sink(type = "message"), add = TRUE)
  on.exit(set_time_limit(), add = TRUE)
  tryCatch(
    withCallingHandlers(
      {
        # The JIT stays off (the handler starts R with R_ENABLE_JIT=0): it compiles through
        # mkCode, which the capsule removes; packages' precompiled bytecode still runs.
        set_time_limit(cpu = timeout, elapsed = timeout, transient = FALSE)
        bind_inputs(script_env, input, workdir)
        # Read now, parsed only once the capsule is armed: the snapshot is hostile input.
        staged <- if (!is.null(input$session)) session_staged(input$session, workdir)
        note_script_places()
        plot_capture <- open_plot_capture(input$plots, workdir)
        capsule <- arm_capsule(deadline = as.numeric(input$deadlineSeconds) - elapsed_since(started))
        if (!is.null(input$session)) session_begin(staged, script_env, input$allowedPackages, input$session, add_note)
        for (i in seq_along(exprs)) {
          current <- i
          # format_error() recognises this exact call as "the script's top level".
          shown <- withVisible(eval(exprs[[i]], script_env))
          if (shown$visible) autoprint(shown$value, script_env)
          last <- shown
          set_last_value(shown$value)
          # Output reaches the handler as it happens, so a run the backstop kills keeps it.
          flush(stdout())
        }
        set_time_limit()
      },
      warning = conditions$warning,
      message = conditions$message,
      # Here the stack is still there to read; a fault in reading it must not replace the error.
      error = function(e) {
        details <<- tryCatch(
          error_details(e, sys.calls(), exprs, current, caps, script_env, input$allowedPackages),
          error = function(x) NULL
        )
      }
    ),
    error = function(e) {
      set_time_limit()
      outcome <<- error_outcome(e, started, timeout, caps, current > 0L, details, attr(exprs, "srcfile"))
    }
  )
  finish()
}

# The answer when the script ended R itself at its `current`-th top-level expression.
quit_message <- function(exprs, current) {
  paste0(
    "Error: quit() at line ", expression_position(exprs, current)$line, " ends the script here: jube-r runs ",
    "the R session for you and returns its output; end the script with its last expression instead, ",
    "or stop(\"why\") to fail it"
  )
}

# A visible value printed as R's console prints it, through base's own autoprint, source()'s
# print.eval: print() (show() for S4) found from the script's environment. Packages that keep a
# value from printing at the console right after a call of theirs (data.table's `DT[, x := y]`)
# recognise that caller, as they recognise the console's.
autoprint <- function(value, script_env) {
  print_env <- new.env(parent = script_env)
  assign(".jube_value", value, envir = print_env)
  source(exprs = list(quote(.jube_value)), local = print_env, print.eval = TRUE, echo = FALSE)
}

# .Last.value as R's console sets it after each top-level expression, visible or not.
set_last_value <- function(value) {
  unlockBinding(".Last.value", baseenv())
  assign(".Last.value", value, envir = baseenv())
  lockBinding(".Last.value", baseenv())
}

elapsed_since <- function(started) (proc.time() - started)[["elapsed"]]
