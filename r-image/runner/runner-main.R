# jube-r runner, main part: loaded by runner.R (see there for why it is split in two).
#
# Runs ONE untrusted script in this fresh R process and writes the result envelope.
# WORKDIR holds script.R and input.json (written by the execute handler); this writes
# WORKDIR/envelope.json. stdout is only console text: a script printing a fake envelope cannot
# forge its status, and a script writing envelope.json itself and quitting cannot either, because
# the envelope must carry the nonce that only this file's closure ever saw.
#
# Everything lives inside local() so nothing of the runner is reachable from globalenv(), the
# parent of the script's environment.
local({
  # Captured before user code runs: the script may shadow these names in its own environment,
  # but never reaches the runner's frames.
  base_ns <- baseenv()
  json <- asNamespace("jsonlite")
  to_json <- get("toJSON", envir = json)
  from_json <- get("fromJSON", envir = json)
  write_text <- base::writeLines
  enable_jit <- get("enableJIT", envir = asNamespace("compiler"))
  subset2 <- base::.subset2
  # The runner owns the time limit; harden_runtime() replaces base's setTimeLimit with a stub.
  set_time_limit <- base::setTimeLimit
  cap_string <- function(x, max_bytes) {
    if (!is.character(x) || length(x) != 1L || is.na(x)) return("")
    if (nchar(x, type = "bytes") <= max_bytes) return(x)
    # One character more than the byte cap: still over it, so the handler cuts exactly and flags it.
    substr(x, 1L, max_bytes + 1L)
  }

  args <- commandArgs(trailingOnly = TRUE)
  rules_file <- args[[1L]]
  workdir <- args[[2L]]
  envelope_path <- file.path(workdir, "envelope.json")

  stdin_con <- file("stdin")
  nonce <- readLines(stdin_con, n = 1L, warn = FALSE)
  close(stdin_con)
  if (length(nonce) != 1L || !nzchar(nonce)) stop("jube-r runner: no nonce on stdin")

  r_version <- paste(R.version$major, R.version$minor, sep = ".")

  write_envelope <- function(fields) {
    envelope <- c(list(nonce = nonce, rVersion = r_version), fields)
    text <- to_json(envelope, auto_unbox = TRUE, null = "null", na = "null", digits = NA)
    tmp <- paste0(envelope_path, ".tmp")
    write_text(text, tmp, useBytes = TRUE)
    file.rename(tmp, envelope_path)
    invisible(NULL)
  }

  # simplifyVector = FALSE: jsonlite's simplification costs ~40 ms of start-up on every run.
  rules <- from_json(rules_file, simplifyVector = FALSE)
  strings <- function(x) as.character(unlist(x, use.names = FALSE))
  input <- from_json(file.path(workdir, "input.json"), simplifyVector = FALSE)
  caps <- input$caps

  # ---- re-validation with R's own parser (DESIGN.md section 3, layer 4) -------------------------

  forbidden <- unique(unlist(lapply(rules$forbiddenSymbols, function(category) strings(category$symbols))))
  blocked_operators <- vapply(rules$blockedOperators, function(b) b$operator, character(1))
  loaders <- strings(rules$packageLoaders)
  loader_args <- c("package", strings(rules$packageLoaderArguments$allowedNamedArguments))
  allowed_packages <- unlist(input$allowedPackages)
  hof_names <- strings(rules$higherOrderFunctions$names)
  fun_arg_names <- strings(rules$higherOrderFunctions$functionArgumentNames)
  option_functions <- strings(rules$options$functions)
  denied_options <- strings(rules$options$deniedNames)

  strip_quotes <- function(text) {
    n <- nchar(text)
    quoted <- n >= 2L & substr(text, 1L, 1L) %in% c("`", "\"", "'") & substr(text, n, n) == substr(text, 1L, 1L)
    text[quoted] <- substr(text[quoted], 2L, n[quoted] - 1L)
    text
  }
  string_value <- function(text) {
    # A string literal's value, escapes included; fall back to the stripped text.
    value <- tryCatch(eval(str2lang(text), base_ns), error = function(e) NULL)
    if (is.character(value) && length(value) == 1L) value else strip_quotes(text)
  }

  validate_script <- function(script_path) {
    errors <- list()
    add <- function(code, message, line, column, symbol = NULL) {
      err <- list(code = code, message = message, line = max(1L, as.integer(line)), column = max(1L, as.integer(column)))
      if (!is.null(symbol)) err$symbol <- symbol
      errors[[length(errors) + 1L]] <<- err
    }
    exprs <- tryCatch(parse(script_path, keep.source = TRUE, encoding = "UTF-8"), error = function(e) e)
    if (inherits(exprs, "error")) {
      msg <- conditionMessage(exprs)
      pos <- regmatches(msg, regexec(":([0-9]+):([0-9]+):", msg))[[1L]]
      line <- if (length(pos) == 3L) as.integer(pos[[2L]]) else 1L
      column <- if (length(pos) == 3L) as.integer(pos[[3L]]) else 1L
      add("SYNTAX_ERROR", paste("R could not parse the script:", cap_string(msg, 2000L)), line, column)
      if (!is.null(input$treeSitterSymbols)) {
        add("PARSER_DISAGREEMENT", "tree-sitter parsed the script but R did not", line, column)
      }
      return(list(exprs = NULL, errors = errors))
    }
    pd <- utils::getParseData(exprs, includeText = TRUE)
    if (is.null(pd)) pd <- data.frame(token = character(), text = character(), terminal = logical())
    tokens <- pd[pd$terminal, , drop = FALSE]
    tokens <- tokens[order(tokens$line1, tokens$col1), , drop = FALSE]
    token_index <- seq_len(nrow(tokens))
    by_id <- function(id) pd[match(id, pd$id), , drop = FALSE]
    previous_token <- c("", tokens$token[-nrow(tokens)])
    next_token <- c(tokens$token[-1L], "")

    # The parser cross-check: the same symbol inventory as layers/parser/symbol-inventory.ts.
    symbol_tokens <- c("SYMBOL", "SYMBOL_FUNCTION_CALL", "SYMBOL_SUB", "SYMBOL_FORMALS", "SYMBOL_PACKAGE", "SLOT")
    r_symbols <- strip_quotes(tokens$text[tokens$token %in% symbol_tokens])
    r_symbols <- r_symbols[!(r_symbols == "..." | grepl("^\\.\\.[0-9]+$", r_symbols))]
    ts_symbols <- input$treeSitterSymbols
    if (is.null(ts_symbols)) {
      add("PARSER_DISAGREEMENT", "R parsed the script but tree-sitter reported a syntax error", 1L, 1L)
    } else {
      ts_symbols <- as.character(unlist(ts_symbols))
      if (!identical(sort(r_symbols, method = "radix"), sort(ts_symbols, method = "radix"))) {
        add("PARSER_DISAGREEMENT", "R's parser and tree-sitter read different symbols in this script", 1L, 1L)
      }
    }

    for (i in token_index) {
      tok <- tokens$token[[i]]
      text <- tokens$text[[i]]
      line <- tokens$line1[[i]]
      col <- tokens$col1[[i]]
      if (tok %in% c("SYMBOL", "SYMBOL_FUNCTION_CALL")) {
        name <- strip_quotes(text)
        # x$name and x@name select a field; they do not look anything up.
        if (previous_token[[i]] %in% c("'$'", "'@'")) next
        if (name %in% forbidden) {
          add("FORBIDDEN_SYMBOL", sprintf("'%s' is not allowed in jube-r scripts", name), line, col, name)
        } else if (startsWith(name, ".__")) {
          add("FORBIDDEN_SYMBOL", sprintf("'%s' is package metadata (S4 method tables and class definitions hold environments) and not allowed in jube-r scripts", name), line, col, name)
        }
      } else if (tok %in% c("LEFT_ASSIGN", "RIGHT_ASSIGN", "NS_GET_INT", "NS_GET") && text %in% blocked_operators) {
        add("BLOCKED_OPERATOR", sprintf("the operator '%s' is not allowed", text), line, col, text)
      } else if (tok == "SYMBOL_PACKAGE") {
        pkg <- strip_quotes(text)
        if (!(pkg %in% allowed_packages)) {
          add("PACKAGE_NOT_ALLOWED", sprintf("package '%s' is not available to jube-r scripts", pkg), line, col, pkg)
        }
      } else if (tok == "STR_CONST") {
        value <- string_value(text)
        if (previous_token[[i]] %in% c("NS_GET", "NS_GET_INT") && (value %in% forbidden || startsWith(value, ".__"))) {
          add("FORBIDDEN_SYMBOL", sprintf("'%s' is not allowed in jube-r scripts", value), line, col, value)
        } else if (next_token[[i]] == "'('") {
          add("FORBIDDEN_STRING_FUNCTION", "a string may not be called as a function", line, col, value)
        } else if (value %in% forbidden && string_passed_as_function(pd, tokens, i)) {
          add("FORBIDDEN_STRING_FUNCTION", sprintf("'%s' may not be passed as a function name", value), line, col, value)
        }
      }
    }

    # Calls: package loaders and options().
    calls <- which(tokens$token == "SYMBOL_FUNCTION_CALL")
    for (i in calls) {
      name <- strip_quotes(tokens$text[[i]])
      if (!(name %in% c(loaders, option_functions))) next
      call_id <- by_id(by_id(tokens$parent[[i]])$parent)$id
      args <- call_arguments(pd, call_id)
      line <- tokens$line1[[i]]
      col <- tokens$col1[[i]]
      if (name %in% loaders) {
        check_loader(name, args, line, col, add)
      } else {
        for (arg in args) {
          if (!is.null(arg$name)) {
            if (arg$name %in% denied_options) {
              add("OPTION_NOT_ALLOWED", sprintf("option '%s' may not be set", arg$name), arg$line, arg$col, arg$name)
            }
          } else if (!identical(arg$token, "STR_CONST")) {
            add("OPTION_NOT_ALLOWED", "options() must be given its settings by name", arg$line, arg$col)
          }
        }
      }
    }
    list(exprs = exprs, errors = errors)
  }

  # The arguments of the call expression `call_id`: name (if any), the token of a literal value,
  # its text and position.
  call_arguments <- function(pd, call_id) {
    kids <- pd[pd$parent == call_id, , drop = FALSE]
    kids <- kids[order(kids$line1, kids$col1), , drop = FALSE]
    out <- list()
    pending_name <- NULL
    seen_open <- FALSE
    for (k in seq_len(nrow(kids))) {
      tok <- kids$token[[k]]
      if (!seen_open) {
        if (tok == "'('") seen_open <- TRUE
        next
      }
      if (tok %in% c("SYMBOL_SUB", "STR_CONST") && k < nrow(kids) && kids$token[[k + 1L]] == "EQ_SUB") {
        pending_name <- strip_quotes(kids$text[[k]])
      } else if (tok == "expr") {
        inner <- pd[pd$parent == kids$id[[k]], , drop = FALSE]
        literal <- if (nrow(inner) == 1L && inner$terminal[[1L]]) inner$token[[1L]] else "expr"
        out[[length(out) + 1L]] <- list(
          name = pending_name, token = literal, text = if (nrow(inner) == 1L) inner$text[[1L]] else "",
          line = kids$line1[[k]], col = kids$col1[[k]]
        )
        pending_name <- NULL
      } else if (tok == "EQ_SUB" || tok == "','" || tok == "')'") {
        if (tok != "EQ_SUB" && !is.null(pending_name)) {
          out[[length(out) + 1L]] <- list(name = pending_name, token = "empty", text = "", line = kids$line1[[k]], col = kids$col1[[k]])
          pending_name <- NULL
        }
      }
    }
    out
  }

  check_loader <- function(name, args, line, col, add) {
    positional <- Filter(function(a) is.null(a$name) || a$name == "package", args)
    for (arg in args) {
      if (!is.null(arg$name) && !(arg$name %in% loader_args)) {
        add("PACKAGE_LOADER_ARGUMENT", sprintf("%s() may not be given '%s'", name, arg$name), arg$line, arg$col, arg$name)
      }
    }
    if (length(positional) != 1L || !(positional[[1L]]$token %in% c("SYMBOL", "STR_CONST"))) {
      add("PACKAGE_LOADER_ARGUMENT", sprintf("%s() must name exactly one package literally", name), line, col)
      return(invisible())
    }
    pkg <- strip_quotes(positional[[1L]]$text)
    if (positional[[1L]]$token == "STR_CONST") pkg <- string_value(positional[[1L]]$text)
    if (!(pkg %in% allowed_packages)) {
      add("PACKAGE_NOT_ALLOWED", sprintf("package '%s' is not available to jube-r scripts", pkg), line, col, pkg)
    }
  }

  # A forbidden name as a string is as good as the symbol where a function is expected: an
  # argument of a higher-order function, or a named function argument (FUN = "system").
  string_passed_as_function <- function(pd, tokens, i) {
    wrapper <- pd[match(tokens$parent[[i]], pd$id), , drop = FALSE]
    call <- pd[match(wrapper$parent, pd$id), , drop = FALSE]
    if (nrow(call) != 1L || is.na(call$id)) return(FALSE)
    kids <- pd[pd$parent == call$id, , drop = FALSE]
    kids <- kids[order(kids$line1, kids$col1), , drop = FALSE]
    head <- kids[1L, , drop = FALSE]
    head_tokens <- pd[pd$parent == head$id, , drop = FALSE]
    fn <- strip_quotes(head_tokens$text[head_tokens$token == "SYMBOL_FUNCTION_CALL"])
    if (length(fn) == 1L && fn %in% hof_names) return(TRUE)
    at <- match(wrapper$id, kids$id)
    if (!is.na(at) && at >= 3L && kids$token[[at - 1L]] == "EQ_SUB") {
      arg_name <- strip_quotes(kids$text[[at - 2L]])
      if (arg_name %in% fun_arg_names) return(TRUE)
    }
    FALSE
  }

  # ---- the runtime mask (DESIGN.md section 3, layer 6) -----------------------------------------

  refuse <- function(message) {
    stop(structure(class = c("jube_forbidden_error", "error", "condition"), list(message = message, call = NULL)))
  }
  forbidden_stub <- function(name) {
    force(name)
    function(...) refuse(sprintf("'%s' is not available in jube-r", name))
  }
  make_mask <- function() {
    mask <- new.env(parent = globalenv())
    for (name in forbidden) assign(name, forbidden_stub(name), envir = mask)
    assign(":::", forbidden_stub(":::"), envir = mask)
    get_exported <- base::getExportedValue
    checked_ns_get <- function(pkg, name) {
      pkg <- as.character(substitute(pkg))
      name <- as.character(substitute(name))
      if (!(pkg %in% allowed_packages)) refuse(sprintf("package '%s' is not available in jube-r", pkg))
      if (name %in% forbidden) forbidden_stub(name)()
      safe <- command_safe[[name]]
      if (!is.null(safe) && identical(safe$pkg, pkg)) return(safe$fun)
      value <- get_exported(pkg, name)
      # Exported S4 method tables (`.__T__show:methods`) are environments inside the package.
      if (is.environment(value)) refuse(sprintf("'%s::%s' is an environment, which is not available in jube-r", pkg, name))
      value
    }
    assign("::", checked_ns_get, envir = mask)
    # Package functions that run a shell command when handed the wrong string: replaced by
    # wrappers in both the mask and the checked `::`, since no name-based rule can see the string.
    for (name in names(command_safe)) {
      if (command_safe[[name]]$pkg %in% allowed_packages) assign(name, command_safe[[name]]$fun, envir = mask)
    }
    mask
  }

  # data.table::fread treats a string without a newline that is not a file as a shell command
  # (and runs cmd= as one); only files and literal text get through.
  safe_fread <- function(input = "", file = NULL, text = NULL, cmd = NULL, ...) {
    refuse_fread <- function(what) {
      refuse(sprintf("fread(%s) would run a shell command, which is not available in jube-r; pass file = or text =", what))
    }
    if (!is.null(cmd)) refuse_fread("cmd = ...")
    if (!identical(input, "")) {
      if (is.character(input) && length(input) == 1L && grepl("\n", input, fixed = TRUE)) {
        text <- input
      } else if (is.character(input) && length(input) == 1L && file.exists(input) && !dir.exists(input)) {
        file <- input
      } else {
        refuse_fread("input = <not a file or text>")
      }
    }
    real_fread <- getExportedValue("data.table", "fread")
    real_fread(file = file, text = text, ...)
  }
  command_safe <- list(fread = list(pkg = "data.table", fun = safe_fread))

  # ---- environments stay out of reach (red-team findings, docs/sandbox-rules.md) ---------------
  #
  # The mask only works while every environment the script holds chains through it: given a
  # package's environment, with(env, sapply(x, "<forbidden>")) finds the real function. So the
  # script's own calls to functions that hand out environments get versions that do not.

  # A copy of `fun` (same environment, so parent.frame() and topenv() behave as in the original)
  # whose body first calls `guard` on the argument named `arg`.
  guarded_copy <- function(fun, guard, arg) {
    copy <- fun
    body(copy) <- call("{", as.call(list(guard, as.name(arg))), body(fun))
    copy
  }
  real_attr <- base::attr
  real_attributes <- base::attributes
  safe_attr <- function(x, which, exact = FALSE) {
    value <- real_attr(x, which, exact = exact)
    if (is.environment(value)) refuse(sprintf("attribute '%s' holds an environment, which is not available in jube-r", which))
    value
  }
  safe_attributes <- function(x) {
    value <- real_attributes(x)
    if (is.null(value)) return(value)
    value[!vapply(value, is.environment, NA)]
  }
  real_at <- base::`@`
  # x@name takes its name unquoted, so the wrapper rebuilds the call around the real primitive.
  safe_at <- function(object, name) {
    value <- eval(as.call(list(real_at, quote(object), substitute(name))))
    if (is.environment(value)) refuse("this slot holds an environment, which is not available in jube-r")
    value
  }
  real_slot <- methods::slot
  safe_slot <- function(object, name) {
    value <- real_slot(object, name)
    if (is.environment(value)) refuse(sprintf("slot '%s' holds an environment, which is not available in jube-r", name))
    value
  }
  real_load_namespace <- base::loadNamespace
  real_attach_namespace <- base::attachNamespace
  # Loading stays possible (the static rules check the name); the namespace itself is not returned.
  safe_load_namespace <- function(package, ...) {
    real_load_namespace(package, ...)
    invisible(NULL)
  }
  safe_attach_namespace <- function(ns, ...) {
    real_attach_namespace(ns, ...)
    invisible(NULL)
  }
  # utils::data(lib.loc =) runs the R files and loads the .rda files of any directory.
  safe_data <- guarded_copy(utils::data, function(lib.loc) {
    if (!is.null(lib.loc)) refuse("data(lib.loc = ...) is not available in jube-r; data() reads the installed packages only")
  }, "lib.loc")
  # methods::new("environment") (or any class extending it) is a fresh environment whose parent is
  # globalenv(), outside the mask.
  safe_new <- guarded_copy(methods::new, function(Class) {
    def <- tryCatch(methods::getClass(Class), error = function(e) NULL)
    if (!is.null(def) && methods::extends(def, "environment")) {
      refuse("new() of an environment class is not available in jube-r")
    }
  }, "Class")
  command_safe <- c(command_safe, list(
    attr = list(pkg = "base", fun = safe_attr),
    attributes = list(pkg = "base", fun = safe_attributes),
    `@` = list(pkg = "base", fun = safe_at),
    slot = list(pkg = "methods", fun = safe_slot),
    loadNamespace = list(pkg = "base", fun = safe_load_namespace),
    attachNamespace = list(pkg = "base", fun = safe_attach_namespace),
    data = list(pkg = "utils", fun = safe_data),
    new = list(pkg = "methods", fun = safe_new)
  ))

  # ---- hardening below the mask (defense in depth when an environment leaks anyway) ------------
  #
  # R looks a function named by a string up in the caller's frame: match.fun() in lapply() called
  # from ave() (stats) or outer() called from kronecker() (base) resolves the script's string in a
  # package namespace, not in the mask. And formula("(...)") or lm("y ~ ...") parse a string and
  # evaluate it in a package frame. So, just before the script runs, the runner rebinds (in the
  # namespaces and attached package environments where they live):
  # - match.fun (and rlang's as_function, as rlang loads): refuses a forbidden name given as a
  #   string or symbol;
  # - stats' formula.character (the method every string-to-formula conversion goes through):
  #   refuses formula text naming a forbidden symbol or using a blocked operator;
  # - grDevices' pdf: refuses a file name starting with "|", which R's PDF device opens as a pipe
  #   to a shell command (ggsave(device = "pdf"), dev.print() and dev.copy2pdf() all come here);
  # - base's dyn.load: loads shared objects from R's installed libraries only (e1071::tune(METHOD =
  #   "dyn.load") reached it with a file the script wrote);
  #   (sys.source stays: loadNamespace() runs every package's loader through it)
  # - the functions that start processes, open sockets, change the time limit or run code from a
  #   file: stubs. R's own code never needs them during an analysis.
  # What stays reachable from a leaked environment is .Internal() on a constructed call
  # (docs/sandbox-rules.md, residual risks); the OS layers bound that.
  deep_stubbed <- unique(c(
    strings(rules$forbiddenSymbols$process$symbols), strings(rules$forbiddenSymbols$network$symbols),
    "setTimeLimit", "setSessionTimeLimit", "source", "dget", "Sweave", "Stangle", "evalSource", "insertSource"
  ))
  hardened_packages <- c("base", "utils", "stats", "methods", "grDevices", "graphics", "tools")
  rebind <- function(env, name, value) {
    locked <- bindingIsLocked(name, env)
    if (locked) unlockBinding(name, env)
    assign(name, value, envir = env)
    if (locked) lockBinding(name, env)
  }
  # Every environment holding the package's bindings: the namespace and, if attached, package:<name>.
  package_envs <- function(pkg) {
    if (!(pkg %in% loadedNamespaces())) return(list())
    envs <- list(if (pkg == "base") .BaseNamespaceEnv else asNamespace(pkg))
    attached <- paste0("package:", pkg)
    if (attached %in% search()) envs[[2L]] <- as.environment(attached)
    envs
  }
  # NULL, or the function match.fun() must return instead of looking the name up.
  check_name <- function(FUN) {
    if ((is.character(FUN) && length(FUN) == 1L && !is.na(FUN)) || is.symbol(FUN)) {
      name <- as.character(FUN)
      if (name %in% forbidden) forbidden_stub(name)()
      if (name %in% names(command_safe)) return(command_safe[[name]]$fun)
    }
    NULL
  }
  # A copy of a function that resolves a name (`arg`) to a function, refusing forbidden names
  # and answering the runner's safe version for the names it replaces.
  guarded_lookup <- function(fun, arg) {
    copy <- fun
    body(copy) <- call("{", call("<-", quote(.jube_safe), as.call(list(check_name, as.name(arg)))),
      quote(if (!is.null(.jube_safe)) return(.jube_safe)), body(fun))
    copy
  }
  patch_rlang <- function(...) {
    ns <- asNamespace("rlang")
    rebind(ns, "as_function", guarded_lookup(get("as_function", envir = ns), "x"))
  }
  check_formula_text <- function(x) {
    if (!is.character(x)) return(invisible())
    code <- tryCatch(str2expression(x), error = function(e) NULL)
    names <- unique(unlist(lapply(code, all.names)))
    bad <- names[names %in% c(forbidden, blocked_operators)]
    if (length(bad) > 0L) {
      refuse(sprintf("'%s' is not available in jube-r, not even inside a formula given as a string", bad[[1L]]))
    }
  }
  check_device_file <- function(file) {
    if (is.character(file) && any(grepl("^[[:space:]]*[|]", file))) {
      refuse("a graphics file name starting with '|' pipes the output to a shell command, which is not available in jube-r")
    }
  }
  # R's libraries as they were before the script could write anything: the only places a shared
  # object may be loaded from (library.dynam() loads every package's DLL through dyn.load()).
  library_roots <- unique(normalizePath(c(.libPaths(), R.home()), mustWork = FALSE))
  check_dll_path <- function(x) {
    path <- if (is.character(x) && length(x) == 1L && !is.na(x)) normalizePath(x, mustWork = FALSE) else ""
    if (!any(startsWith(path, paste0(library_roots, "/")))) {
      refuse("dyn.load() of a file outside R's installed libraries is not available in jube-r")
    }
  }
  harden_runtime <- function() {
    for (pkg in hardened_packages) {
      for (env in package_envs(pkg)) {
        for (name in deep_stubbed) {
          if (exists(name, envir = env, inherits = FALSE)) rebind(env, name, forbidden_stub(name))
        }
      }
    }
    for (env in package_envs("base")) rebind(env, "match.fun", guarded_lookup(base::match.fun, "FUN"))
    # rlang::as_function("name") looks the name up from globalenv(), past the mask (tidyr's
    # values_transform = "dget" ran a file). rlang loads with dplyr, tidyr, purrr or ggplot2, after
    # this point: patch it as it loads, before those packages copy it into their imports.
    setHook(packageEvent("rlang", "onLoad"), patch_rlang)
    if ("rlang" %in% loadedNamespaces()) patch_rlang()
    for (env in package_envs("base")) rebind(env, "dyn.load", guarded_copy(base::dyn.load, check_dll_path, "x"))
    pdf <- guarded_copy(get("pdf", envir = asNamespace("grDevices")), check_device_file, "file")
    for (env in package_envs("grDevices")) rebind(env, "pdf", pdf)
    stats_ns <- asNamespace("stats")
    formula_character <- guarded_copy(get("formula.character", envir = stats_ns), check_formula_text, "x")
    rebind(stats_ns, "formula.character", formula_character)
    s3_table <- get(".__S3MethodsTable__.", envir = stats_ns)
    rebind(s3_table, "formula.character", formula_character)
  }

  # ---- inputs -----------------------------------------------------------------------------------

  as_r_value <- function(value) {
    if (is.list(value)) {
      if (length(value) == 0L) return(logical(0))
      value <- unlist(value, use.names = FALSE)
    }
    if (is.integer(value)) value <- as.double(value)
    value
  }

  bind_inputs <- function(env) {
    for (variable in input$variables) assign(variable$name, as_r_value(variable$value), envir = env)
    if (length(input$dataframes) > 0L) {
      read_table <- if (requireNamespace("data.table", quietly = TRUE)) {
        fread <- get("fread", envir = asNamespace("data.table"))
        function(path) fread(file = path, data.table = FALSE, stringsAsFactors = FALSE, showProgress = FALSE)
      } else {
        function(path) utils::read.csv(path, stringsAsFactors = FALSE, check.names = FALSE)
      }
      for (df in input$dataframes) assign(df$name, read_table(file.path(workdir, df$file)), envir = env)
    }
  }

  # ---- evaluation -------------------------------------------------------------------------------

  format_error <- function(e) {
    msg <- subset2(e, "message")
    msg <- if (is.character(msg) && length(msg) >= 1L) paste(msg, collapse = "\n") else "an error without a message"
    call <- subset2(e, "call")
    # stop() at the script's top level reports the runner's eval() as its call; R's console says "Error:".
    text <- if (is.call(call) && !identical(call, quote(eval(expr, script_env)))) {
      paste0("Error in ", paste(deparse(call, nlines = 1L, width.cutoff = 80L), collapse = ""), ": ", msg)
    } else {
      paste0("Error: ", msg)
    }
    cap_string(text, caps$errorBytes)
  }

  run <- function() {
    timeout <- as.numeric(input$timeoutSeconds)
    checked <- validate_script(file.path(workdir, "script.R"))
    if (length(checked$errors) > 0L) {
      write_envelope(list(status = "rejected", error = NULL, warnings = list(), timedOut = FALSE, validation = checked$errors))
      return(invisible())
    }

    script_env <- new.env(parent = make_mask())
    warnings <- character()
    warnings_dropped <- 0L
    warning_bytes <- 0
    on_warning <- function(w) {
      text <- cap_string(paste(subset2(w, "message"), collapse = "\n"), caps$warningBytes)
      size <- nchar(text, type = "bytes")
      if (length(warnings) < caps$warnings && warning_bytes + size <= caps$warningBytes) {
        warnings[[length(warnings) + 1L]] <<- text
        warning_bytes <<- warning_bytes + size
      } else {
        warnings_dropped <<- warnings_dropped + 1L
      }
      invokeRestart("muffleWarning")
    }
    outcome <- list(status = "ok", error = NULL, timedOut = FALSE)
    started <- proc.time()
    # Messages join stdout, so console text and messages keep their order.
    sink(stdout(), type = "message")
    on.exit(sink(type = "message"), add = TRUE)
    on.exit(set_time_limit(), add = TRUE)
    tryCatch(
      withCallingHandlers(
        {
          # The handler starts R with the JIT off so the runner's own functions are not compiled
          # (about 100 ms); the script gets R's default level back.
          harden_runtime()
          enable_jit(3L)
          set_time_limit(cpu = timeout, elapsed = timeout, transient = FALSE)
          bind_inputs(script_env)
          for (expr in checked$exprs) {
            shown <- withVisible(eval(expr, script_env))
            if (shown$visible) {
              print_env <- new.env(parent = script_env)
              assign(".jube_value", shown$value, envir = print_env)
              eval(quote(print(.jube_value)), print_env)
            }
          }
          set_time_limit()
        },
        warning = on_warning
      ),
      error = function(e) {
        set_time_limit()
        msg <- subset2(e, "message")
        # A script can stop("reached elapsed time limit") itself; only a limit that was reached counts.
        used <- proc.time() - started
        reached <- max(used[["elapsed"]], used[["user.self"]] + used[["sys.self"]]) >= timeout * 0.9
        if (reached && is.character(msg) && length(msg) == 1L && grepl("^reached (elapsed|CPU) time limit", msg)) {
          outcome <<- list(status = "error", error = sprintf("script exceeded its %d s limit (R time limit)", as.integer(timeout)), timedOut = TRUE)
        } else {
          outcome <<- list(status = "error", error = format_error(e), timedOut = FALSE)
        }
      }
    )
    set_time_limit()
    flush(stdout())
    write_envelope(c(outcome, list(warnings = as.list(warnings), warningsDropped = warnings_dropped)))
  }

  run()
})
invisible(NULL)
