# The conditions a script signals, as an agent needs them back: warnings and messages in
# order, each with its call and the script line it came from, within count and byte caps; and for
# the error that ended the script its class, message, call, line and the script's own frames.

# Captured when the runner loads: the script may shadow these names in its own environment.
condition_message <- base::conditionMessage

# R names the loop's own eval() as the call of a condition signalled at the script's top level.
top_level_call <- quote(eval(exprs[[i]], script_env))

# A call as the caller reads it: deparsed on one line and capped; NULL at the top level or for none.
call_text <- function(call, max_bytes) {
  if (!is.call(call) || identical(call, top_level_call)) return(NULL)
  truncate_bytes(paste(deparse(call, nlines = 1L, width.cutoff = 500L), collapse = ""), max_bytes)
}

# One log per kind of condition: kept in order while the count and byte caps allow, the rest counted.
# A condition identical to one kept (the same text, call and line) is folded into it: it counts,
# and its text says how many times it came ("... [240 times]"), so a loop's flood costs one entry.
new_condition_log <- function(max_count, max_bytes) {
  texts <- character()
  details <- list()
  counts <- integer()
  seen <- new.env(hash = TRUE, parent = emptyenv())
  dropped <- 0L
  bytes <- 0
  list(
    record = function(text, detail) {
      text <- cap_string(text, max_bytes)
      key <- paste(text, detail$call, detail$line, detail$column, sep = "\r")
      index <- seen[[key]]
      if (!is.null(index)) {
        counts[[index]] <<- counts[[index]] + 1L
        return(invisible())
      }
      size <- nchar(text, type = "bytes")
      if (length(texts) < max_count && bytes + size <= max_bytes) {
        texts[[length(texts) + 1L]] <<- text
        details[[length(details) + 1L]] <<- detail
        counts[[length(counts) + 1L]] <<- 1L
        assign(key, length(texts), envir = seen)
        bytes <<- bytes + size
      } else {
        dropped <<- dropped + 1L
      }
    },
    texts = function() {
      as.list(ifelse(counts > 1L, paste0(texts, " [", counts, " times]"), texts))
    },
    # What each kept text came with (call, line, column) and its count when it came more than once;
    # the text itself is only in texts(), so the response does not carry it twice.
    details = function() {
      Map(function(detail, count) if (count > 1L) c(detail, list(count = count)) else detail, details, counts)
    },
    dropped = function() dropped
  )
}

# Package start-up messages ("Attaching package", "The following objects are masked", "Registered
# S3 method overwritten") say nothing about the script's result: they stay out of the console
# and `messages`, and one note sums them up.
new_startup_log <- function(max_bytes) {
  texts <- character()
  list(
    record = function(text) texts[[length(texts) + 1L]] <<- gsub("[[:space:]]+", " ", trimws(text)),
    note = function() {
      if (length(texts) == 0L) return(NULL)
      truncate_bytes(
        sprintf("%d package start-up message(s) left out of consoleOutput and messages: %s", length(texts),
                paste(texts, collapse = "; ")),
        max_bytes
      )
    }
  )
}

# The warning and message handlers of the evaluation loop. `here()` is where the running top-level
# expression starts (an empty list before the script's first expression). Warnings are muffled
# (they are returned, not printed); messages go on to the console, where they keep their order,
# but for package start-up messages, which are muffled and summed up in one note.
new_condition_logs <- function(caps, here) {
  warnings <- new_condition_log(caps$warnings, caps$warningBytes)
  messages <- new_condition_log(caps$messages, caps$messageBytes)
  startup <- new_startup_log(caps$messageBytes)
  list(
    warning = function(w) {
      text <- paste(subset2(w, "message"), collapse = "\n")
      warnings$record(text, c(list(call = call_text(subset2(w, "call"), caps$callBytes)), here()))
      invokeRestart("muffleWarning")
    },
    message = function(m) {
      text <- tryCatch(condition_message(m), error = function(e) paste(subset2(m, "message"), collapse = ""))
      text <- sub("\n$", "", paste(text, collapse = ""))
      if (inherits(m, "packageStartupMessage")) {
        startup$record(text)
        invokeRestart("muffleMessage")
      }
      messages$record(text, list())
    },
    startup_note = function() startup$note(),
    fields = function() {
      list(
        warnings = warnings$texts(), warningsDropped = warnings$dropped(), warningDetails = warnings$details(),
        messages = messages$texts(), messagesDropped = messages$dropped()
      )
    }
  )
}

# The error that ended the script, from inside the calling handler (the stack is still there).
# `calls` is sys.calls() there; `exprs` and `current` say which top-level expression was running;
# `script_env` and `packages` feed the hints (error-cause.R). `line` and `column` are the innermost
# place in the script; `expressionLine` and `expressionColumn` where the top-level expression starts.
error_details <- function(e, calls, exprs, current, caps, script_env = emptyenv(), packages = character()) {
  chain <- condition_chain(e)
  message <- chain_message(e, chain)
  details <- list(
    class = as.list(class(e)),
    message = truncate_bytes(message, caps$errorBytes),
    call = call_text(subset2(e, "call"), caps$callBytes)
  )
  top <- if (current > 0L) expression_position(exprs, current) else list()
  frames <- script_frames(calls, attr(exprs, "srcfile"), top, caps)
  if (length(top) == 0L) return(c(details, list(traceback = frames)))
  tokens <- tryCatch(expression_tokens(exprs, current), error = function(err) NULL)
  messages <- c(message, vapply(chain, own_message, ""))
  missing <- missing_name(messages)
  near <- list(script_top_call(calls), subset2(e, "call"))
  at <- tryCatch(innermost_position(frames, tokens, missing, near), error = function(err) NULL)
  if (is.null(at)) at <- top
  hints <- tryCatch(error_hints(messages, missing, script_env, tokens, packages), error = function(err) character())
  c(
    details, at, list(expressionLine = top$line, expressionColumn = top$column, traceback = frames),
    if (length(hints) > 0L) {
      list(hints = as.list(vapply(hints, truncate_bytes, "", max_bytes = caps$callBytes, USE.NAMES = FALSE)))
    }
  )
}

# The call the running top-level expression made (the first frame below the loop's eval()), or NULL.
script_top_call <- function(calls) {
  first <- Position(function(call) identical(call, top_level_call), calls)
  if (is.na(first)) return(NULL)
  while (first < length(calls) && identical(calls[[first + 1L]], top_level_call)) first <- first + 1L
  call <- if (first + 1L < length(calls)) calls[[first + 1L]]
  if (is.call(call) && !identical(call[[1L]], quote(.handleSimpleError))) call
}

# The script's own frames, outermost first: the call the top-level expression made (at that
# expression's position) and every deeper call written in the script (at its srcref); package
# internals and the condition machinery are left out. At most caps$tracebackFrames: the outermost
# and the innermost ones.
script_frames <- function(calls, srcfile, top, caps) {
  first <- Position(function(call) identical(call, top_level_call), calls)
  if (is.na(first) || length(top) == 0L) return(list())
  while (first < length(calls) && identical(calls[[first + 1L]], top_level_call)) first <- first + 1L
  # The last frame is the handler asking; .handleSimpleError() relays an error R itself raised.
  calls <- calls[seq_len(length(calls) - 1L)]
  script <- if (first < length(calls)) calls[seq.int(first + 1L, length(calls))] else list()
  script <- Filter(function(call) !identical(call[[1L]], quote(.handleSimpleError)), script)
  frames <- list()
  for (k in seq_along(script)) {
    ref <- attr(script[[k]], "srcref")
    position <- if (k == 1L) {
      top
    } else if (!is.null(ref) && identical(attr(ref, "srcfile"), srcfile)) {
      list(line = ref[[1L]], column = ref[[5L]])
    }
    if (!is.null(position)) {
      frames[[length(frames) + 1L]] <- c(list(call = call_text(script[[k]], caps$callBytes)), position)
    }
  }
  keep <- caps$tracebackFrames
  if (length(frames) <= keep) return(frames)
  c(frames[1L], utils::tail(frames, keep - 1L))
}
