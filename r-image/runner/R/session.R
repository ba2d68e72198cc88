# A call of a session (docs/sessions.md): input.json's `session` says which call this is, whether
# the handler staged the session's snapshot in the workdir to restore, and the caps of the one
# this call writes. The workspace is globalenv(): the snapshot builds it again (session-read.R)
# once the capsule is armed (the call's inputs win over a restored object of the same name). After
# the script, whatever happened, the workspace is written again (session-write.R) for the handler
# to store, and the envelope says what the session holds.

# This call's session: what options() and the search path were before the snapshot was restored
# (so a snapshot keeps only what the session's scripts set), and whether a session is on (hints).
session_state <- new.env(parent = emptyenv())

# Before the capsule is armed: the staged snapshot's text, read and not parsed (NULL: none staged).
session_staged <- function(session, workdir) {
  if (!isTRUE(session$restore)) return(NULL)
  path <- workdir_file(workdir, "sessionIn")
  text <- tryCatch(readChar(path, file.size(path), useBytes = TRUE), error = function(e) NULL)
  unlink(path)
  if (is.null(text)) "" else text
}

# Under the capsule, before the script: the baseline, then the snapshot's workspace in `env`. Names
# the call's own inputs bound win over the snapshot's. A snapshot the reader refuses leaves the
# workspace as the inputs made it: the call starts new, and a note says why.
session_begin <- function(staged, env, allowed_packages, session, add_note) {
  session_state$active <- TRUE
  session_state$options_before <- options()
  session_state$packages_before <- session_packages()
  session_state$restored <- FALSE
  session_state$begun <- TRUE
  if (is.null(staged)) return(invisible())
  inputs <- ls(env, all.names = TRUE)
  notes <- tryCatch({
    if (nchar(staged, type = "bytes") > session$maxBytes) session_refuse("it is larger than the session's cap")
    snapshot <- jsonlite::parse_json(staged, simplifyVector = FALSE)
    restored <- session_restore(snapshot, env, allowed_packages, session$maxObjects, keep = inputs)
    session_state$restored <- TRUE
    restored
  }, error = function(e) {
    rm(list = setdiff(ls(env, all.names = TRUE), inputs), envir = env)
    why <- if (inherits(e, "jube_session_refused")) {
      conditionMessage(e)
    } else {
      paste("the session's snapshot could not be restored:", conditionMessage(e))
    }
    paste0(why, "; this call starts with an empty workspace")
  })
  for (note in notes) add_note(note)
  invisible()
}

# After the script: the snapshot for the handler to store, and the envelope's `session` field.
# NULL when the call never reached its workspace (the capsule did not arm): nothing is written.
session_end <- function(session, workdir, env, add_note) {
  if (!isTRUE(session_state$begun)) return(NULL)
  session_state$begun <- FALSE
  limits <- list(maxBytes = session$maxBytes, maxObjects = session$maxObjects)
  snapshot <- tryCatch(
    session_snapshot(env, session$call, limits, session_state$options_before, session_state$packages_before),
    error = function(e) NULL
  )
  # How many the answer lists: seam.json `session.listed` (layers/contract/session.ts).
  listed <- session_objects(env, session_seam("listed"))
  fields <- list(restored = isTRUE(session_state$restored), objects = listed$objects, objectsOmitted = listed$omitted)
  if (is.null(snapshot)) {
    add_note("the session's workspace could not be written; its next call starts from the one before")
    return(c(fields, list(saved = FALSE)))
  }
  path <- workdir_file(workdir, "sessionOut")
  tmp <- paste0(path, ".tmp")
  write_text(snapshot$json, tmp, useBytes = TRUE)
  file.rename(tmp, path)
  for (drop in snapshot$dropped) {
    add_note(sprintf(
      "`%s` (%s) is not kept for the session's next call (make it again there): %s",
      drop$name, drop$class, drop$why
    ))
  }
  c(fields, list(saved = TRUE, dropped = snapshot$dropped))
}

# The hint for a name the session does not hold: the names it does, instead of "every call starts
# fresh" (error-hints.R). NULL outside a session.
session_name_hint <- function(name, env) {
  if (!isTRUE(session_state$active)) return(NULL)
  held <- ls(env)
  if (length(held) == 0L) {
    return(sprintf("`%s` is not in this session's workspace, which is empty: make it in this call", name))
  }
  shown <- utils::head(held, 20L)
  more <- if (length(held) > 20L) sprintf(" (and %d more)", length(held) - 20L) else ""
  sprintf(
    "`%s` is not in this session's workspace, which holds %s%s: make it in this call", name,
    paste0("`", shown, "`", collapse = ", "), more
  )
}
