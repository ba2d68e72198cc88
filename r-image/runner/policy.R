# The policy: the rules file (layers/rules/script-rules.json) and this run's allowed packages,
# as the name vectors the re-validation, the mask and the hardening read. Everything below is
# driven by these vectors, so a new forbidden symbol or category needs no change to the runner.

strings <- function(x) as.character(unlist(x, use.names = FALSE))

# The process and network functions, and the ones that lift the time limit or run code from a
# file, are also stubbed below the mask (harden.R): R's own code never needs them during an analysis.
deep_stub_categories <- c("process", "network")
deep_stub_extra <- c(
  "setTimeLimit", "setSessionTimeLimit", "source", "dget", "Sweave", "Stangle", "evalSource", "insertSource"
)

compile_policy <- function(rules, allowed_packages) {
  deep_stubbed <- lapply(rules$forbiddenSymbols[deep_stub_categories], function(category) strings(category$symbols))
  relax <- rules$relaxations
  hof <- rules$higherOrderFunctions
  forbidden <- unique(unlist(lapply(rules$forbiddenSymbols, function(category) strings(category$symbols))))
  s3 <- s3_name_parts(forbidden)
  list(
    forbidden = forbidden,
    s3_prefixes = s3$prefixes,
    s3_suffixes = s3$suffixes,
    blocked_operators = vapply(rules$blockedOperators, function(b) b$operator, character(1)),
    loaders = strings(rules$packageLoaders),
    loader_args = c("package", strings(rules$packageLoaderArguments$allowedNamedArguments)),
    allowed_packages = unlist(allowed_packages),
    blocked_packages = stats::setNames(
      vapply(rules$packages$blocked, function(b) b$why, character(1)),
      vapply(rules$packages$blocked, function(b) b$name, character(1))
    ),
    meta_packages = stats::setNames(
      lapply(rules$packages$metaPackages, function(m) strings(m$members)),
      vapply(rules$packages$metaPackages, function(m) m$name, character(1))
    ),
    dependency_advice = unlist(rules$packages$allowedDependencies$insteadOf),
    package_queries = strings(rules$packages$packageQueries$functions),
    package_query_args = strings(rules$packages$packageQueries$allowedNamedArguments),
    named_exports = stats::setNames(
      lapply(rules$packages$namedExports$packages, function(p) strings(lapply(p$groups, function(g) g$names))),
      vapply(rules$packages$namedExports$packages, function(p) p$name, character(1))
    ),
    refused_exports = unlist(lapply(rules$packages$namedExports$packages, function(p) {
      if (length(p$refused) == 0L) return(NULL)
      stats::setNames(strings(p$refused), paste0(p$name, "::", names(p$refused)))
    })),
    # "pkg::name" -> its formals in order, each named by what it may hold (export-arguments.R).
    checked_exports = unlist(lapply(rules$packages$namedExports$packages, function(p) {
      if (length(p$arguments) == 0L) return(NULL)
      kinds <- lapply(p$arguments, function(a) stats::setNames(strings(a), names(a)))
      stats::setNames(kinds, paste0(p$name, "::", names(p$arguments)))
    }), recursive = FALSE),
    internal_functions = compile_internal_functions(rules, allowed_packages),
    environment_exports = stats::setNames(
      lapply(rules$packages$environmentExports$packages, function(p) list(kind = p$kind, names = strings(p$names))),
      vapply(rules$packages$environmentExports$packages, function(p) p$name, character(1))
    ),
    hof_names = strings(hof$names),
    fun_arg_names = strings(hof$functionArgumentNames),
    unwrapped_functions = strings(hof$unwrappedFunctions$names),
    option_functions = strings(rules$options$functions),
    denied_options = strings(rules$options$deniedNames),
    restricted_options = lapply(rules$options$restrictedValues$names, function(values) as.numeric(unlist(values))),
    deep_stubbed = unique(c(unlist(deep_stubbed, use.names = FALSE), deep_stub_extra)),
    column_operators = strings(relax$columnNames$operators),
    column_functions = strings(relax$columnNames$columnFunctions),
    function_valued_args = c(strings(relax$columnNames$functionValuedArguments), strings(hof$functionArgumentNames)),
    scope_functions = strings(relax$columnNames$scopeFunctions),
    column_set_functions = strings(relax$columnNames$columnSets$functions),
    selection_args = strings(relax$columnNames$columnSets$arguments),
    literal_functions = relax$literalFunctionNames$functions,
    refused_literal_names = strings(relax$literalFunctionNames$refusedNames),
    local_functions = strings(relax$localBlocks$functions),
    superassign_operators = strings(relax$superassignment$operators),
    superassign_advice = relax$superassignment$advice,
    data_arguments = strings(relax$dataNames$dataArguments),
    attach_functions = strings(relax$attachedFrames$functions),
    attach_other_args = strings(relax$attachedFrames$otherArguments),
    example_functions = strings(relax$packageExamples$functions),
    example_package = relax$packageExamples$package,
    example_other_args = strings(relax$packageExamples$otherArguments),
    fresh_env_functions = strings(relax$freshEnvironments$functions),
    env_setting_functions = strings(relax$environmentSettings$functions),
    env_setting_names = strings(relax$environmentSettings$names),
    env_setting_pattern = relax$environmentSettings$valuePattern,
    env_read_functions = strings(relax$environmentReads$functions),
    env_read_arguments = strings(relax$environmentReads$arguments),
    env_read_names = strings(relax$environmentReads$names),
    working_directory_functions = strings(relax$workingDirectory$functions),
    sink_functions = strings(relax$consoleDiversion$functions),
    sink_arguments = strings(relax$consoleDiversion$arguments),
    sink_types = strings(relax$consoleDiversion$types),
    saved_options_functions = strings(relax$savedOptions$functions)
  )
}
