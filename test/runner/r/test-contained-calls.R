# safe-calls.R: the script's Sys.getenv(), setwd() and sink() (relaxations.environmentReads,
# workingDirectory, consoleDiversion) stay inside what the rules promise whatever they are given:
# computed names, escapes by '..' and symlinks, connections, and diversions left open.
use_script_sandbox()

# Both outside tempdir(), which is a place the script may go too.
workdir <- normalizePath(tempfile("jube-contained-", tmpdir = dirname(tempdir())), mustWork = FALSE)
dir.create(file.path(workdir, "sub"), recursive = TRUE)
outside <- normalizePath(tempfile("jube-outside-", tmpdir = dirname(tempdir())), mustWork = FALSE)
dir.create(outside)
file.symlink("/", file.path(workdir, "root-link"))
file.symlink(outside, file.path(workdir, "out-link"))
file.symlink(file.path(outside, "gone.txt"), file.path(workdir, "dangling.txt"))
start <- getwd()
setwd(workdir)
runner$contain_script_places(workdir)

case("Sys.getenv answers the listed names and unset for every other one", {
  Sys.setenv(JUBE_TEST_SECRET = "do-not-leak", TZ = "UTC")
  expect_identical(in_script("Sys.getenv('TZ')"), "UTC")
  expect_identical(in_script("Sys.getenv('JUBE_TEST_SECRET')"), "")
  expect_identical(in_script("Sys.getenv('JUBE_TEST_SECRET', unset = NA)"), NA_character_)
  expect_identical(
    in_script("Sys.getenv(c('TZ', 'JUBE_TEST_SECRET', 'PATH'))"), c(TZ = "UTC", JUBE_TEST_SECRET = "", PATH = "")
  )
  expect_identical(in_script("Sys.getenv(paste0('JUBE_TEST_', 'SECRET'), names = TRUE)"), c(JUBE_TEST_SECRET = ""))
  expect_identical(in_script("nzchar(Sys.getenv('NOT_CRAN'))"), FALSE)
})
case("Sys.getenv() lists only the listed names that are set, as a Dlist", {
  all <- in_script("Sys.getenv()")
  expect_identical(class(all), "Dlist")
  expect_true(all(names(all) %in% policy$env_read_names))
  expect_true(all(c("TZ", "R_HOME") %in% names(all)))
  expect_true(!("JUBE_TEST_SECRET" %in% names(all)) && !("PATH" %in% names(all)))
  expect_true(!any(grepl("do-not-leak", in_script("Sys.getenv(names = FALSE)"), fixed = TRUE)))
})
case("setwd moves inside the workdir and tempdir and back, returning the old directory", {
  old <- in_script("setwd('sub')")
  expect_identical(old, workdir)
  expect_identical(getwd(), file.path(workdir, "sub"))
  in_script("setwd('..')")
  expect_identical(getwd(), workdir)
  in_script("back <- setwd(tempdir())")
  expect_identical(getwd(), normalizePath(tempdir()))
  in_script("setwd(back)")
  expect_identical(getwd(), workdir)
})
case("setwd refuses '/', '..' out of the workdir and a symlink that leads out", {
  for (dir in c("/", "..", "sub/../..", "root-link", "out-link", outside, "~/..")) {
    expect_error(in_script(sprintf("setwd('%s')", dir)), "setwd\\(\\) may only move inside")
    expect_identical(getwd(), workdir)
  }
  expect_error(in_script("setwd('no-such-dir')"), "cannot change working directory")
  expect_error(in_script("setwd(1)"), "character argument expected")
})
case("sink diverts the output into a file inside and sink() ends it", {
  in_script("sink('sub/log.txt')")
  print("into the file")
  in_script("sink()")
  expect_identical(readLines(file.path(workdir, "sub", "log.txt")), "[1] \"into the file\"")
  expect_identical(sink.number(), 0L)
  in_script("zz <- textConnection('captured', 'w')")
  in_script("sink(zz)")
  cat("held\n")
  in_script("sink()")
  in_script("close(zz)")
  expect_identical(in_script("captured"), "held")
  in_script("con <- file('sub/con.txt', 'w')")
  in_script("sink(con, type = 'output')")
  cat("by connection\n")
  in_script("sink()")
  in_script("close(con)")
  expect_identical(readLines(file.path(workdir, "sub", "con.txt")), "by connection")
})
case("sink refuses the message stream, files outside, symlinks out and other connections", {
  expect_error(in_script("sink(stdout(), type = 'message')"), "only the output stream")
  expect_error(in_script("sink(type = c('output', 'message'))"), "only the output stream")
  escapes <- c(
    file.path(outside, "x.txt"), "/tmp/jube-contained-x.txt", "../x.txt", "out-link/x.txt", "dangling.txt",
    "root-link/x"
  )
  for (path in escapes) {
    expect_error(in_script(sprintf("sink('%s')", path)), "may write only inside")
  }
  expect_true(!file.exists(file.path(outside, "x.txt")) && !file.exists(file.path(outside, "gone.txt")))
  in_script(sprintf("oc <- file('%s', 'w')", file.path(outside, "c.txt")))
  expect_error(in_script("sink(oc)"), "may write only to a file inside")
  in_script("close(oc)")
  expect_error(in_script("sink(stderr())"), "may write only to a file inside")
  expect_identical(sink.number(), 0L)
})
case("the runner ends every diversion the script left open and goes back to the workdir", {
  in_script("sink('left-open.txt')")
  in_script("sink('sub/nested.txt', split = TRUE)")
  in_script("setwd('sub')")
  runner$release_script_places()
  expect_identical(sink.number(), 0L)
  expect_identical(getwd(), workdir)
})

setwd(start)
unlink(c(workdir, outside), recursive = TRUE)
