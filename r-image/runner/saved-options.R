# The saved-options relaxation (script-rules.json `relaxations.savedOptions`) on R's parse data,
# as layers/validator/script-facts.ts judges it: options(op) may restore `op` when every binding of
# `op` in the script is `op <- options(...)` and nothing modifies it.

# Whether the expression `id` lies inside the target of an assignment (`op$x <- 1`, `names(op) <- n`).
inside_target <- function(pd, id) {
  while (!is.na(id) && id != 0L) {
    if (assigned_side(pd, id)) return(TRUE)
    id <- pd_row(pd, id)$parent
  }
  FALSE
}

# Why options(name) does not restore a saved options list, or NULL (savedOptionsProblem), once per name.
saved_options_problem <- function(parsed, name, policy) {
  key <- paste0("saved_options:", name)
  if (!exists(key, envir = parsed$memo, inherits = FALSE)) {
    assign(key, judge_saved_options(parsed, name, policy), envir = parsed$memo)
  }
  get(key, envir = parsed$memo, inherits = FALSE)
}

judge_saved_options <- function(parsed, name, policy) {
  pd <- parsed$pd
  at <- which(parsed$tokens$token %in% c("SYMBOL", "STR_CONST", "SYMBOL_FORMALS") & token_values(parsed) == name)
  saved <- FALSE
  for (i in at) {
    role <- token_role(parsed, i)
    parent <- parsed$tokens$parent[[i]]
    if (role == "parameter") return(sprintf("`%s` is also a function parameter", name))
    if (role == "binding") {
      if (pd_row(pd, parent)$token == "forcond") return(sprintf("`%s` is also a loop variable", name))
      kids <- children_of(pd, pd_row(pd, parent)$parent)
      value <- kids$id[[if (kids$id[[1L]] == parent) 3L else 1L]]
      if (!(callee_of(pd, value) %in% policy$saved_options_functions)) {
        return(sprintf("`%s` is also assigned something other than options(...)", name))
      }
      saved <- TRUE
    } else if (role == "reference" && inside_target(pd, parent)) {
      return(sprintf("`%s` is modified after it is saved", name))
    }
  }
  if (saved) NULL else sprintf("`%s` is not assigned from options(...) in the script", name)
}

# options(op) for an unnamed, non-string argument: NULL when it restores a saved list, else why not.
saved_options_verdict <- function(name, site, arg, policy) {
  problem <- if (!identical(arg$token, "SYMBOL") || !(name %in% policy$saved_options_functions)) {
    "an unnamed list is not allowed"
  } else if (inside_scope(site$parsed$pd, site$call, policy)) {
    "it is restored inside with()"
  } else {
    saved_options_problem(site$parsed, strip_quotes(arg$text), policy)
  }
  if (!is.null(problem)) {
    paste("options() must be given its settings by name or a list saved from options(); here", problem)
  }
}
