/* Generated from layers/rules/capabilities.json by scripts/write-capabilities.mts: do not edit. */
/* test/unit/rules/capabilities.test.ts fails while this file differs from what the script writes. */
#ifndef JUBE_CAPABILITIES_GEN_H
#define JUBE_CAPABILITIES_GEN_H

/* X(id, name, does, message) */
#define CAPABILITY_CATEGORIES(X) \
  X(CAT_PROGRAM, "program", "runs a program", "programs cannot run in this sandbox; do the work in R (GET /packages lists what is installed)") \
  X(CAT_PROCESS, "process", "creates or reaches another process", "this sandbox runs one R process; parallel::mclapply() runs serially here (mc.cores = 1), and lapply() or purrr::map() do the same work") \
  X(CAT_NETWORK, "network", "opens a network connection", "this sandbox has no network; pass data in the request (variables, dataframes) instead of downloading it") \
  X(CAT_FILES, "files", "reaches files outside the run's directory", "a script writes only in its working directory (files for the caller go in out/) and reads there, in R's libraries and in the system's shared data") \
  X(CAT_NATIVE_CODE, "nativeCode", "loads or calls compiled code directly", "compiled code runs here only as installed packages call it; call the package's R functions instead") \
  X(CAT_MEMORY, "memory", "builds bytecode, reveals an address or changes memory protection", "R's bytecode builders, object addresses and memory controls are removed here; packages' compiled bytecode still runs") \
  X(CAT_DESERIALIZATION, "deserialization", "deserializes R objects", "R objects are read back only from installed packages' files here (a serialized object can run code when read); keep data between steps as CSV or JSON") \
  X(CAT_SIGNALS, "signals", "signals or profiles a process", "a script may signal only its own process, and profiling is off here") \
  X(CAT_IPC, "ipc", "uses a kernel object that outlives the run (IPC, keyrings)", "inter-process objects and keyrings are not available here; keep state in R objects or files in the working directory") \
  X(CAT_ENVIRONMENT, "environment", "changes the process's environment variables", "only the time zone (TZ, TZDIR), the locale (LANG, LANGUAGE, LC_*), the OpenMP thread count and R's own _R_ settings may be set here") \
  X(CAT_TIME_LIMITS, "timeLimits", "changes the run's time limit", "the run's time limit can be lowered but never lifted; ask for a longer timeoutSeconds instead") \
  X(CAT_SYSTEM, "system", "changes the machine or the process's identity and limits", "the machine, the process's identity and its limits are fixed here") \

/* X(entry, category, action, arity or NO_ARITY, source, replayed) */
#define DISPATCH_ROWS(X) \
  X("system", CAT_PROGRAM, ACTION_REFUSE, NO_ARITY, SOURCE_NONE, 0) \
  X("pipe", CAT_PROGRAM, ACTION_REFUSE, NO_ARITY, SOURCE_NONE, 0) \
  X("file.show", CAT_PROGRAM, ACTION_REFUSE, NO_ARITY, SOURCE_NONE, 0) \
  X("url", CAT_NETWORK, ACTION_REFUSE, NO_ARITY, SOURCE_NONE, 0) \
  X("file", CAT_NETWORK, ACTION_NO_URL, NO_ARITY, SOURCE_NONE, 0) \
  X("socketConnection", CAT_NETWORK, ACTION_REFUSE, NO_ARITY, SOURCE_NONE, 0) \
  X("socketAccept", CAT_NETWORK, ACTION_REFUSE, NO_ARITY, SOURCE_NONE, 0) \
  X("serverSocket", CAT_NETWORK, ACTION_REFUSE, NO_ARITY, SOURCE_NONE, 0) \
  X("socketTimeout", CAT_NETWORK, ACTION_REFUSE, NO_ARITY, SOURCE_NONE, 0) \
  X("curlDownload", CAT_NETWORK, ACTION_REFUSE, NO_ARITY, SOURCE_NONE, 0) \
  X("curlGetHeaders", CAT_NETWORK, ACTION_REFUSE, NO_ARITY, SOURCE_NONE, 0) \
  X("dyn.load", CAT_NATIVE_CODE, ACTION_PACKAGE_OBJECT, NO_ARITY, SOURCE_NONE, 0) \
  X("environment<-", CAT_NATIVE_CODE, ACTION_KEEP_BYTECODE, NO_ARITY, SOURCE_NONE, 0) \
  X("dyn.unload", CAT_NATIVE_CODE, ACTION_REFUSE, NO_ARITY, SOURCE_NONE, 0) \
  X(".C", CAT_NATIVE_CODE, ACTION_FOREIGN_CALL, NO_ARITY, SOURCE_NONE, 0) \
  X(".Fortran", CAT_NATIVE_CODE, ACTION_FOREIGN_CALL, NO_ARITY, SOURCE_NONE, 0) \
  X(".Call", CAT_NATIVE_CODE, ACTION_FOREIGN_CALL, NO_ARITY, SOURCE_NONE, 0) \
  X(".External", CAT_NATIVE_CODE, ACTION_FOREIGN_CALL, NO_ARITY, SOURCE_NONE, 0) \
  X(".External2", CAT_NATIVE_CODE, ACTION_FOREIGN_CALL, NO_ARITY, SOURCE_NONE, 0) \
  X(".Call.graphics", CAT_NATIVE_CODE, ACTION_FOREIGN_CALL, NO_ARITY, SOURCE_NONE, 1) \
  X(".External.graphics", CAT_NATIVE_CODE, ACTION_FOREIGN_CALL, NO_ARITY, SOURCE_NONE, 1) \
  X("mkCode", CAT_MEMORY, ACTION_REFUSE, 2, SOURCE_NONE, 0) \
  X("bcClose", CAT_MEMORY, ACTION_REFUSE, 3, SOURCE_NONE, 0) \
  X("bodyCode", CAT_MEMORY, ACTION_REFUSE, 1, SOURCE_NONE, 0) \
  X("disassemble", CAT_MEMORY, ACTION_REFUSE, 1, SOURCE_NONE, 0) \
  X("bcVersion", CAT_MEMORY, ACTION_REFUSE, 0, SOURCE_NONE, 0) \
  X("is.builtin.internal", CAT_MEMORY, ACTION_REFUSE, 1, SOURCE_NONE, 0) \
  X("bcprofcounts", CAT_MEMORY, ACTION_REFUSE, 0, SOURCE_NONE, 0) \
  X("bcprofstart", CAT_MEMORY, ACTION_REFUSE, 0, SOURCE_NONE, 0) \
  X("bcprofstop", CAT_MEMORY, ACTION_REFUSE, 0, SOURCE_NONE, 0) \
  X("enableJIT", CAT_MEMORY, ACTION_REFUSE, NO_ARITY, SOURCE_NONE, 0) \
  X("compilePKGS", CAT_MEMORY, ACTION_REFUSE, NO_ARITY, SOURCE_NONE, 0) \
  X("inspect", CAT_MEMORY, ACTION_REFUSE, -1, SOURCE_NONE, 0) \
  X("address", CAT_MEMORY, ACTION_REFUSE, 1, SOURCE_NONE, 0) \
  X("tracemem", CAT_MEMORY, ACTION_REFUSE, 1, SOURCE_NONE, 0) \
  X("retracemem", CAT_MEMORY, ACTION_REFUSE, -1, SOURCE_NONE, 0) \
  X("unserializeFromConn", CAT_DESERIALIZATION, ACTION_LIBRARY_FILE, 2, SOURCE_CONNECTION, 0) \
  X("unserialize", CAT_DESERIALIZATION, ACTION_LIBRARY_FILE, 2, SOURCE_CONNECTION, 0) \
  X("loadFromConn2", CAT_DESERIALIZATION, ACTION_LIBRARY_FILE, 3, SOURCE_CONNECTION, 0) \
  X("loadInfoFromConn2", CAT_DESERIALIZATION, ACTION_LIBRARY_FILE, 1, SOURCE_CONNECTION, 0) \
  X("serializeInfoFromConn", CAT_DESERIALIZATION, ACTION_LIBRARY_FILE, 1, SOURCE_CONNECTION, 0) \
  X("load", CAT_DESERIALIZATION, ACTION_LIBRARY_FILE, 2, SOURCE_PATH, 0) \
  X("lazyLoadDBfetch", CAT_DESERIALIZATION, ACTION_LIBRARY_FILE, 4, SOURCE_SECOND_PATH, 0) \
  X("Sys.setenv", CAT_ENVIRONMENT, ACTION_ENVIRONMENT_NAMES, NO_ARITY, SOURCE_NONE, 0) \
  X("Sys.unsetenv", CAT_ENVIRONMENT, ACTION_ENVIRONMENT_NAMES, NO_ARITY, SOURCE_NONE, 0) \
  X("readRenviron", CAT_ENVIRONMENT, ACTION_REFUSE, NO_ARITY, SOURCE_NONE, 0) \
  X("setTimeLimit", CAT_TIME_LIMITS, ACTION_DEADLINE, NO_ARITY, SOURCE_NONE, 0) \
  X("setSessionTimeLimit", CAT_TIME_LIMITS, ACTION_DEADLINE, NO_ARITY, SOURCE_NONE, 0) \
/* X(package, routine, category, answer) */
#define ANSWERED_ROUTINES(X) \
  X("data.table", "Caddress", CAT_MEMORY, ANSWER_OPAQUE_ADDRESS) \
  X("rlang", "ffi_obj_address", CAT_MEMORY, ANSWER_OPAQUE_ADDRESS) \
  X("utils", "Rprof", CAT_SIGNALS, ANSWER_REFUSE) \
  X("utils", "Rprofmem", CAT_SIGNALS, ANSWER_REFUSE) \

#define ACT_FOR_CALLER \
  "base", \
  "methods", \

/* X(package, by) */
#define VOUCHED_BY(X) \
  X("graphics", "grDevices") \

#define ENVIRONMENT_NAMES \
  "TZ", \
  "TZDIR", \
  "LANG", \
  "LANGUAGE", \
  "LC_*", \
  "OMP_NUM_THREADS", \
  "OMP_THREAD_LIMIT", \
  "_R_*", \

#define PROC_SELF_ENTRIES \
  "fd", \
  "fdinfo", \
  "status", \
  "statm", \
  "limits", \
  "cmdline", \
  "comm", \
  "cgroup", \
  "exe", \
  "cwd", \
  "io", \
  "mountinfo", \

#endif /* JUBE_CAPABILITIES_GEN_H */

#ifdef JUBE_SYSCALL_ROWS
#ifndef SYS_execve
#error "capabilities.json: SYS_execve is missing here; mark the row optional if that is right"
#endif
  {SYS_execve, "execve", CAT_PROGRAM, BOTH, CHECK_NONE, EPERM, NAMES("execve", "execv", "execvp", "execvpe", "execl", "execlp", "execle", "system", "popen", "posix_spawn", "posix_spawnp", "wordexp")},
#ifndef SYS_execveat
#error "capabilities.json: SYS_execveat is missing here; mark the row optional if that is right"
#endif
  {SYS_execveat, "execveat", CAT_PROGRAM, BOTH, CHECK_NONE, EPERM, NAMES("execveat", "fexecve")},
#ifndef SYS_clone
#error "capabilities.json: SYS_clone is missing here; mark the row optional if that is right"
#endif
  {SYS_clone, "clone", CAT_PROCESS, BOTH, CHECK_THREAD, EPERM, NAMES("clone", "fork", "vfork", "_Fork", "__fork", "daemon", "forkpty")},
#ifdef SYS_clone3
  {SYS_clone3, "clone3", CAT_PROCESS, BOTH, CHECK_NONE, ENOSYS, NAMES("clone3")},
#endif
#ifdef SYS_fork
  {SYS_fork, "fork", CAT_PROCESS, BOTH, CHECK_NONE, EPERM, NULL},
#endif
#ifdef SYS_vfork
  {SYS_vfork, "vfork", CAT_PROCESS, BOTH, CHECK_NONE, EPERM, NULL},
#endif
#ifndef SYS_ptrace
#error "capabilities.json: SYS_ptrace is missing here; mark the row optional if that is right"
#endif
  {SYS_ptrace, "ptrace", CAT_PROCESS, BOTH, CHECK_NONE, EPERM, NAMES("ptrace")},
#ifndef SYS_process_vm_readv
#error "capabilities.json: SYS_process_vm_readv is missing here; mark the row optional if that is right"
#endif
  {SYS_process_vm_readv, "process_vm_readv", CAT_PROCESS, BOTH, CHECK_NONE, EPERM, NAMES("process_vm_readv")},
#ifndef SYS_process_vm_writev
#error "capabilities.json: SYS_process_vm_writev is missing here; mark the row optional if that is right"
#endif
  {SYS_process_vm_writev, "process_vm_writev", CAT_PROCESS, BOTH, CHECK_NONE, EPERM, NAMES("process_vm_writev")},
#ifndef SYS_kcmp
#error "capabilities.json: SYS_kcmp is missing here; mark the row optional if that is right"
#endif
  {SYS_kcmp, "kcmp", CAT_PROCESS, BOTH, CHECK_NONE, EPERM, NAMES("kcmp")},
#ifndef SYS_pidfd_open
#error "capabilities.json: SYS_pidfd_open is missing here; mark the row optional if that is right"
#endif
  {SYS_pidfd_open, "pidfd_open", CAT_PROCESS, BOTH, CHECK_NONE, EPERM, NAMES("pidfd_open")},
#ifndef SYS_pidfd_getfd
#error "capabilities.json: SYS_pidfd_getfd is missing here; mark the row optional if that is right"
#endif
  {SYS_pidfd_getfd, "pidfd_getfd", CAT_PROCESS, BOTH, CHECK_NONE, EPERM, NAMES("pidfd_getfd")},
#ifndef SYS_socket
#error "capabilities.json: SYS_socket is missing here; mark the row optional if that is right"
#endif
  {SYS_socket, "socket", CAT_NETWORK, BOTH, CHECK_NONE, EPERM, NAMES("socket", "getaddrinfo", "gethostbyname", "gethostbyname2", "gethostbyname_r", "gethostbyname2_r", "gethostbyaddr", "getnameinfo", "res_query", "res_search", "res_send", "res_nquery", "res_nsearch", "res_nsend", "sendto", "sendmsg")},
#ifndef SYS_socketpair
#error "capabilities.json: SYS_socketpair is missing here; mark the row optional if that is right"
#endif
  {SYS_socketpair, "socketpair", CAT_NETWORK, BOTH, CHECK_NONE, EPERM, NAMES("socketpair")},
#ifndef SYS_connect
#error "capabilities.json: SYS_connect is missing here; mark the row optional if that is right"
#endif
  {SYS_connect, "connect", CAT_NETWORK, BOTH, CHECK_NONE, EPERM, NAMES("connect")},
#ifndef SYS_bind
#error "capabilities.json: SYS_bind is missing here; mark the row optional if that is right"
#endif
  {SYS_bind, "bind", CAT_NETWORK, BOTH, CHECK_NONE, EPERM, NAMES("bind")},
#ifndef SYS_listen
#error "capabilities.json: SYS_listen is missing here; mark the row optional if that is right"
#endif
  {SYS_listen, "listen", CAT_NETWORK, BOTH, CHECK_NONE, EPERM, NAMES("listen")},
#ifndef SYS_accept
#error "capabilities.json: SYS_accept is missing here; mark the row optional if that is right"
#endif
  {SYS_accept, "accept", CAT_NETWORK, BOTH, CHECK_NONE, EPERM, NAMES("accept")},
#ifndef SYS_accept4
#error "capabilities.json: SYS_accept4 is missing here; mark the row optional if that is right"
#endif
  {SYS_accept4, "accept4", CAT_NETWORK, BOTH, CHECK_NONE, EPERM, NAMES("accept4")},
#ifdef SYS_open
  {SYS_open, "open", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#endif
#ifdef SYS_creat
  {SYS_creat, "creat", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#endif
#ifdef SYS_rename
  {SYS_rename, "rename", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#endif
#ifdef SYS_link
  {SYS_link, "link", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#endif
#ifdef SYS_symlink
  {SYS_symlink, "symlink", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#endif
#ifdef SYS_unlink
  {SYS_unlink, "unlink", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#endif
#ifdef SYS_rmdir
  {SYS_rmdir, "rmdir", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#endif
#ifdef SYS_mkdir
  {SYS_mkdir, "mkdir", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#endif
#ifdef SYS_mknod
  {SYS_mknod, "mknod", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#endif
#ifdef SYS_chmod
  {SYS_chmod, "chmod", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#endif
#ifdef SYS_chown
  {SYS_chown, "chown", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#endif
#ifdef SYS_lchown
  {SYS_lchown, "lchown", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#endif
#ifdef SYS_stat
  {SYS_stat, "stat", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#endif
#ifdef SYS_lstat
  {SYS_lstat, "lstat", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#endif
#ifdef SYS_access
  {SYS_access, "access", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#endif
#ifdef SYS_readlink
  {SYS_readlink, "readlink", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#endif
#ifndef SYS_truncate
#error "capabilities.json: SYS_truncate is missing here; mark the row optional if that is right"
#endif
  {SYS_truncate, "truncate", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#ifndef SYS_openat
#error "capabilities.json: SYS_openat is missing here; mark the row optional if that is right"
#endif
  {SYS_openat, "openat", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#ifndef SYS_openat2
#error "capabilities.json: SYS_openat2 is missing here; mark the row optional if that is right"
#endif
  {SYS_openat2, "openat2", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#ifdef SYS_renameat
  {SYS_renameat, "renameat", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#endif
#ifndef SYS_renameat2
#error "capabilities.json: SYS_renameat2 is missing here; mark the row optional if that is right"
#endif
  {SYS_renameat2, "renameat2", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#ifndef SYS_linkat
#error "capabilities.json: SYS_linkat is missing here; mark the row optional if that is right"
#endif
  {SYS_linkat, "linkat", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#ifndef SYS_symlinkat
#error "capabilities.json: SYS_symlinkat is missing here; mark the row optional if that is right"
#endif
  {SYS_symlinkat, "symlinkat", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#ifndef SYS_unlinkat
#error "capabilities.json: SYS_unlinkat is missing here; mark the row optional if that is right"
#endif
  {SYS_unlinkat, "unlinkat", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#ifndef SYS_mkdirat
#error "capabilities.json: SYS_mkdirat is missing here; mark the row optional if that is right"
#endif
  {SYS_mkdirat, "mkdirat", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#ifndef SYS_mknodat
#error "capabilities.json: SYS_mknodat is missing here; mark the row optional if that is right"
#endif
  {SYS_mknodat, "mknodat", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#ifndef SYS_fchmodat
#error "capabilities.json: SYS_fchmodat is missing here; mark the row optional if that is right"
#endif
  {SYS_fchmodat, "fchmodat", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#ifndef SYS_fchownat
#error "capabilities.json: SYS_fchownat is missing here; mark the row optional if that is right"
#endif
  {SYS_fchownat, "fchownat", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#ifndef SYS_newfstatat
#error "capabilities.json: SYS_newfstatat is missing here; mark the row optional if that is right"
#endif
  {SYS_newfstatat, "newfstatat", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#ifndef SYS_statx
#error "capabilities.json: SYS_statx is missing here; mark the row optional if that is right"
#endif
  {SYS_statx, "statx", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#ifndef SYS_faccessat
#error "capabilities.json: SYS_faccessat is missing here; mark the row optional if that is right"
#endif
  {SYS_faccessat, "faccessat", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#ifndef SYS_faccessat2
#error "capabilities.json: SYS_faccessat2 is missing here; mark the row optional if that is right"
#endif
  {SYS_faccessat2, "faccessat2", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#ifndef SYS_readlinkat
#error "capabilities.json: SYS_readlinkat is missing here; mark the row optional if that is right"
#endif
  {SYS_readlinkat, "readlinkat", CAT_FILES, IN_WRAPPER, CHECK_NONE, EPERM, NULL},
#ifndef SYS_memfd_create
#error "capabilities.json: SYS_memfd_create is missing here; mark the row optional if that is right"
#endif
  {SYS_memfd_create, "memfd_create", CAT_NATIVE_CODE, BOTH, CHECK_NONE, EPERM, NAMES("memfd_create", "shm_open")},
  {NO_SYSCALL, "lookups", CAT_NATIVE_CODE, 0, CHECK_NONE, EPERM, NAMES("syscall", "dlopen", "dlmopen", "dlsym", "dlvsym", "dladdr", "dladdr1", "dlinfo", "dl_iterate_phdr", "jube_capsule_arm")},
#ifndef SYS_mprotect
#error "capabilities.json: SYS_mprotect is missing here; mark the row optional if that is right"
#endif
  {SYS_mprotect, "mprotect", CAT_MEMORY, IN_WRAPPER, CHECK_NONE, EPERM, NAMES("mprotect")},
#ifndef SYS_pkey_mprotect
#error "capabilities.json: SYS_pkey_mprotect is missing here; mark the row optional if that is right"
#endif
  {SYS_pkey_mprotect, "pkey_mprotect", CAT_MEMORY, IN_WRAPPER, CHECK_NONE, EPERM, NAMES("pkey_mprotect")},
#ifndef SYS_mmap
#error "capabilities.json: SYS_mmap is missing here; mark the row optional if that is right"
#endif
  {SYS_mmap, "mmap", CAT_MEMORY, IN_WRAPPER, CHECK_NONE, EPERM, NAMES("mmap", "mmap64", "mremap")},
#ifndef SYS_prctl
#error "capabilities.json: SYS_prctl is missing here; mark the row optional if that is right"
#endif
  {SYS_prctl, "prctl", CAT_MEMORY, IN_WRAPPER, CHECK_NONE, EPERM, NAMES("prctl")},
#ifndef SYS_seccomp
#error "capabilities.json: SYS_seccomp is missing here; mark the row optional if that is right"
#endif
  {SYS_seccomp, "seccomp", CAT_MEMORY, IN_WRAPPER, CHECK_NONE, EPERM, NAMES("seccomp")},
#ifndef SYS_personality
#error "capabilities.json: SYS_personality is missing here; mark the row optional if that is right"
#endif
  {SYS_personality, "personality", CAT_MEMORY, BOTH, CHECK_NONE, EPERM, NAMES("personality")},
#ifndef SYS_userfaultfd
#error "capabilities.json: SYS_userfaultfd is missing here; mark the row optional if that is right"
#endif
  {SYS_userfaultfd, "userfaultfd", CAT_MEMORY, BOTH, CHECK_NONE, EPERM, NAMES("userfaultfd")},
#ifndef SYS_kill
#error "capabilities.json: SYS_kill is missing here; mark the row optional if that is right"
#endif
  {SYS_kill, "kill", CAT_SIGNALS, BOTH, CHECK_SELF, EPERM, NAMES("kill", "killpg", "sigqueue")},
#ifndef SYS_tgkill
#error "capabilities.json: SYS_tgkill is missing here; mark the row optional if that is right"
#endif
  {SYS_tgkill, "tgkill", CAT_SIGNALS, BOTH, CHECK_SELF, EPERM, NAMES("tgkill")},
#ifndef SYS_rt_sigqueueinfo
#error "capabilities.json: SYS_rt_sigqueueinfo is missing here; mark the row optional if that is right"
#endif
  {SYS_rt_sigqueueinfo, "rt_sigqueueinfo", CAT_SIGNALS, BOTH, CHECK_SELF, EPERM, NULL},
#ifndef SYS_rt_tgsigqueueinfo
#error "capabilities.json: SYS_rt_tgsigqueueinfo is missing here; mark the row optional if that is right"
#endif
  {SYS_rt_tgsigqueueinfo, "rt_tgsigqueueinfo", CAT_SIGNALS, BOTH, CHECK_SELF, EPERM, NULL},
#ifndef SYS_tkill
#error "capabilities.json: SYS_tkill is missing here; mark the row optional if that is right"
#endif
  {SYS_tkill, "tkill", CAT_SIGNALS, BOTH, CHECK_NONE, EPERM, NAMES("tkill")},
#ifndef SYS_pidfd_send_signal
#error "capabilities.json: SYS_pidfd_send_signal is missing here; mark the row optional if that is right"
#endif
  {SYS_pidfd_send_signal, "pidfd_send_signal", CAT_SIGNALS, BOTH, CHECK_NONE, EPERM, NAMES("pidfd_send_signal")},
#ifndef SYS_msgget
#error "capabilities.json: SYS_msgget is missing here; mark the row optional if that is right"
#endif
  {SYS_msgget, "msgget", CAT_IPC, BOTH, CHECK_NONE, EPERM, NAMES("msgget")},
#ifndef SYS_msgsnd
#error "capabilities.json: SYS_msgsnd is missing here; mark the row optional if that is right"
#endif
  {SYS_msgsnd, "msgsnd", CAT_IPC, BOTH, CHECK_NONE, EPERM, NAMES("msgsnd")},
#ifndef SYS_msgrcv
#error "capabilities.json: SYS_msgrcv is missing here; mark the row optional if that is right"
#endif
  {SYS_msgrcv, "msgrcv", CAT_IPC, BOTH, CHECK_NONE, EPERM, NAMES("msgrcv")},
#ifndef SYS_msgctl
#error "capabilities.json: SYS_msgctl is missing here; mark the row optional if that is right"
#endif
  {SYS_msgctl, "msgctl", CAT_IPC, BOTH, CHECK_NONE, EPERM, NAMES("msgctl")},
#ifndef SYS_semget
#error "capabilities.json: SYS_semget is missing here; mark the row optional if that is right"
#endif
  {SYS_semget, "semget", CAT_IPC, BOTH, CHECK_NONE, EPERM, NAMES("semget")},
#ifndef SYS_semop
#error "capabilities.json: SYS_semop is missing here; mark the row optional if that is right"
#endif
  {SYS_semop, "semop", CAT_IPC, BOTH, CHECK_NONE, EPERM, NAMES("semop")},
#ifndef SYS_semtimedop
#error "capabilities.json: SYS_semtimedop is missing here; mark the row optional if that is right"
#endif
  {SYS_semtimedop, "semtimedop", CAT_IPC, BOTH, CHECK_NONE, EPERM, NAMES("semtimedop")},
#ifndef SYS_semctl
#error "capabilities.json: SYS_semctl is missing here; mark the row optional if that is right"
#endif
  {SYS_semctl, "semctl", CAT_IPC, BOTH, CHECK_NONE, EPERM, NAMES("semctl")},
#ifndef SYS_shmget
#error "capabilities.json: SYS_shmget is missing here; mark the row optional if that is right"
#endif
  {SYS_shmget, "shmget", CAT_IPC, BOTH, CHECK_NONE, EPERM, NAMES("shmget")},
#ifndef SYS_shmat
#error "capabilities.json: SYS_shmat is missing here; mark the row optional if that is right"
#endif
  {SYS_shmat, "shmat", CAT_IPC, BOTH, CHECK_NONE, EPERM, NAMES("shmat")},
#ifndef SYS_shmdt
#error "capabilities.json: SYS_shmdt is missing here; mark the row optional if that is right"
#endif
  {SYS_shmdt, "shmdt", CAT_IPC, BOTH, CHECK_NONE, EPERM, NAMES("shmdt")},
#ifndef SYS_shmctl
#error "capabilities.json: SYS_shmctl is missing here; mark the row optional if that is right"
#endif
  {SYS_shmctl, "shmctl", CAT_IPC, BOTH, CHECK_NONE, EPERM, NAMES("shmctl")},
#ifdef SYS_ipc
  {SYS_ipc, "ipc", CAT_IPC, BOTH, CHECK_NONE, EPERM, NULL},
#endif
#ifndef SYS_mq_open
#error "capabilities.json: SYS_mq_open is missing here; mark the row optional if that is right"
#endif
  {SYS_mq_open, "mq_open", CAT_IPC, BOTH, CHECK_NONE, EPERM, NAMES("mq_open", "__mq_open_2")},
#ifndef SYS_mq_unlink
#error "capabilities.json: SYS_mq_unlink is missing here; mark the row optional if that is right"
#endif
  {SYS_mq_unlink, "mq_unlink", CAT_IPC, BOTH, CHECK_NONE, EPERM, NAMES("mq_unlink")},
#ifndef SYS_mq_timedsend
#error "capabilities.json: SYS_mq_timedsend is missing here; mark the row optional if that is right"
#endif
  {SYS_mq_timedsend, "mq_timedsend", CAT_IPC, BOTH, CHECK_NONE, EPERM, NAMES("mq_timedsend", "mq_send")},
#ifndef SYS_mq_timedreceive
#error "capabilities.json: SYS_mq_timedreceive is missing here; mark the row optional if that is right"
#endif
  {SYS_mq_timedreceive, "mq_timedreceive", CAT_IPC, BOTH, CHECK_NONE, EPERM, NAMES("mq_timedreceive", "mq_receive")},
#ifndef SYS_mq_notify
#error "capabilities.json: SYS_mq_notify is missing here; mark the row optional if that is right"
#endif
  {SYS_mq_notify, "mq_notify", CAT_IPC, BOTH, CHECK_NONE, EPERM, NAMES("mq_notify")},
#ifndef SYS_mq_getsetattr
#error "capabilities.json: SYS_mq_getsetattr is missing here; mark the row optional if that is right"
#endif
  {SYS_mq_getsetattr, "mq_getsetattr", CAT_IPC, BOTH, CHECK_NONE, EPERM, NAMES("mq_getattr", "mq_setattr")},
#ifndef SYS_keyctl
#error "capabilities.json: SYS_keyctl is missing here; mark the row optional if that is right"
#endif
  {SYS_keyctl, "keyctl", CAT_IPC, BOTH, CHECK_NONE, EPERM, NAMES("keyctl")},
#ifndef SYS_add_key
#error "capabilities.json: SYS_add_key is missing here; mark the row optional if that is right"
#endif
  {SYS_add_key, "add_key", CAT_IPC, BOTH, CHECK_NONE, EPERM, NAMES("add_key")},
#ifndef SYS_request_key
#error "capabilities.json: SYS_request_key is missing here; mark the row optional if that is right"
#endif
  {SYS_request_key, "request_key", CAT_IPC, BOTH, CHECK_NONE, EPERM, NAMES("request_key")},
#ifndef SYS_unshare
#error "capabilities.json: SYS_unshare is missing here; mark the row optional if that is right"
#endif
  {SYS_unshare, "unshare", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NAMES("unshare")},
#ifndef SYS_setns
#error "capabilities.json: SYS_setns is missing here; mark the row optional if that is right"
#endif
  {SYS_setns, "setns", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NAMES("setns")},
#ifndef SYS_mount
#error "capabilities.json: SYS_mount is missing here; mark the row optional if that is right"
#endif
  {SYS_mount, "mount", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NAMES("mount")},
#ifndef SYS_umount2
#error "capabilities.json: SYS_umount2 is missing here; mark the row optional if that is right"
#endif
  {SYS_umount2, "umount2", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NAMES("umount", "umount2")},
#ifndef SYS_pivot_root
#error "capabilities.json: SYS_pivot_root is missing here; mark the row optional if that is right"
#endif
  {SYS_pivot_root, "pivot_root", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NAMES("pivot_root")},
#ifndef SYS_chroot
#error "capabilities.json: SYS_chroot is missing here; mark the row optional if that is right"
#endif
  {SYS_chroot, "chroot", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NAMES("chroot")},
#ifndef SYS_mount_setattr
#error "capabilities.json: SYS_mount_setattr is missing here; mark the row optional if that is right"
#endif
  {SYS_mount_setattr, "mount_setattr", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifndef SYS_fsopen
#error "capabilities.json: SYS_fsopen is missing here; mark the row optional if that is right"
#endif
  {SYS_fsopen, "fsopen", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifndef SYS_fsconfig
#error "capabilities.json: SYS_fsconfig is missing here; mark the row optional if that is right"
#endif
  {SYS_fsconfig, "fsconfig", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifndef SYS_fsmount
#error "capabilities.json: SYS_fsmount is missing here; mark the row optional if that is right"
#endif
  {SYS_fsmount, "fsmount", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifndef SYS_fspick
#error "capabilities.json: SYS_fspick is missing here; mark the row optional if that is right"
#endif
  {SYS_fspick, "fspick", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifndef SYS_open_tree
#error "capabilities.json: SYS_open_tree is missing here; mark the row optional if that is right"
#endif
  {SYS_open_tree, "open_tree", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifndef SYS_move_mount
#error "capabilities.json: SYS_move_mount is missing here; mark the row optional if that is right"
#endif
  {SYS_move_mount, "move_mount", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifndef SYS_swapon
#error "capabilities.json: SYS_swapon is missing here; mark the row optional if that is right"
#endif
  {SYS_swapon, "swapon", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifndef SYS_swapoff
#error "capabilities.json: SYS_swapoff is missing here; mark the row optional if that is right"
#endif
  {SYS_swapoff, "swapoff", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifndef SYS_reboot
#error "capabilities.json: SYS_reboot is missing here; mark the row optional if that is right"
#endif
  {SYS_reboot, "reboot", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifndef SYS_kexec_load
#error "capabilities.json: SYS_kexec_load is missing here; mark the row optional if that is right"
#endif
  {SYS_kexec_load, "kexec_load", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifdef SYS_kexec_file_load
  {SYS_kexec_file_load, "kexec_file_load", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#endif
#ifndef SYS_init_module
#error "capabilities.json: SYS_init_module is missing here; mark the row optional if that is right"
#endif
  {SYS_init_module, "init_module", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifndef SYS_finit_module
#error "capabilities.json: SYS_finit_module is missing here; mark the row optional if that is right"
#endif
  {SYS_finit_module, "finit_module", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifndef SYS_delete_module
#error "capabilities.json: SYS_delete_module is missing here; mark the row optional if that is right"
#endif
  {SYS_delete_module, "delete_module", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifndef SYS_bpf
#error "capabilities.json: SYS_bpf is missing here; mark the row optional if that is right"
#endif
  {SYS_bpf, "bpf", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NAMES("bpf")},
#ifndef SYS_perf_event_open
#error "capabilities.json: SYS_perf_event_open is missing here; mark the row optional if that is right"
#endif
  {SYS_perf_event_open, "perf_event_open", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NAMES("perf_event_open")},
#ifndef SYS_io_uring_setup
#error "capabilities.json: SYS_io_uring_setup is missing here; mark the row optional if that is right"
#endif
  {SYS_io_uring_setup, "io_uring_setup", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NAMES("io_uring_setup")},
#ifndef SYS_io_uring_enter
#error "capabilities.json: SYS_io_uring_enter is missing here; mark the row optional if that is right"
#endif
  {SYS_io_uring_enter, "io_uring_enter", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifndef SYS_io_uring_register
#error "capabilities.json: SYS_io_uring_register is missing here; mark the row optional if that is right"
#endif
  {SYS_io_uring_register, "io_uring_register", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifndef SYS_open_by_handle_at
#error "capabilities.json: SYS_open_by_handle_at is missing here; mark the row optional if that is right"
#endif
  {SYS_open_by_handle_at, "open_by_handle_at", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NAMES("open_by_handle_at")},
#ifndef SYS_name_to_handle_at
#error "capabilities.json: SYS_name_to_handle_at is missing here; mark the row optional if that is right"
#endif
  {SYS_name_to_handle_at, "name_to_handle_at", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NAMES("name_to_handle_at")},
#ifndef SYS_acct
#error "capabilities.json: SYS_acct is missing here; mark the row optional if that is right"
#endif
  {SYS_acct, "acct", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifndef SYS_quotactl
#error "capabilities.json: SYS_quotactl is missing here; mark the row optional if that is right"
#endif
  {SYS_quotactl, "quotactl", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifndef SYS_settimeofday
#error "capabilities.json: SYS_settimeofday is missing here; mark the row optional if that is right"
#endif
  {SYS_settimeofday, "settimeofday", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifndef SYS_clock_settime
#error "capabilities.json: SYS_clock_settime is missing here; mark the row optional if that is right"
#endif
  {SYS_clock_settime, "clock_settime", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifndef SYS_adjtimex
#error "capabilities.json: SYS_adjtimex is missing here; mark the row optional if that is right"
#endif
  {SYS_adjtimex, "adjtimex", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifndef SYS_clock_adjtime
#error "capabilities.json: SYS_clock_adjtime is missing here; mark the row optional if that is right"
#endif
  {SYS_clock_adjtime, "clock_adjtime", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifndef SYS_sethostname
#error "capabilities.json: SYS_sethostname is missing here; mark the row optional if that is right"
#endif
  {SYS_sethostname, "sethostname", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifndef SYS_setdomainname
#error "capabilities.json: SYS_setdomainname is missing here; mark the row optional if that is right"
#endif
  {SYS_setdomainname, "setdomainname", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifndef SYS_syslog
#error "capabilities.json: SYS_syslog is missing here; mark the row optional if that is right"
#endif
  {SYS_syslog, "syslog", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifndef SYS_fanotify_init
#error "capabilities.json: SYS_fanotify_init is missing here; mark the row optional if that is right"
#endif
  {SYS_fanotify_init, "fanotify_init", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#ifdef SYS_iopl
  {SYS_iopl, "iopl", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#endif
#ifdef SYS_ioperm
  {SYS_ioperm, "ioperm", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NULL},
#endif
#ifndef SYS_setrlimit
#error "capabilities.json: SYS_setrlimit is missing here; mark the row optional if that is right"
#endif
  {SYS_setrlimit, "setrlimit", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NAMES("setrlimit", "setrlimit64")},
#ifndef SYS_prlimit64
#error "capabilities.json: SYS_prlimit64 is missing here; mark the row optional if that is right"
#endif
  {SYS_prlimit64, "prlimit64", CAT_SYSTEM, BOTH, CHECK_READ_LIMIT, EPERM, NAMES("prlimit", "prlimit64")},
#ifndef SYS_setuid
#error "capabilities.json: SYS_setuid is missing here; mark the row optional if that is right"
#endif
  {SYS_setuid, "setuid", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NAMES("setuid", "seteuid")},
#ifndef SYS_setgid
#error "capabilities.json: SYS_setgid is missing here; mark the row optional if that is right"
#endif
  {SYS_setgid, "setgid", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NAMES("setgid", "setegid")},
#ifndef SYS_setreuid
#error "capabilities.json: SYS_setreuid is missing here; mark the row optional if that is right"
#endif
  {SYS_setreuid, "setreuid", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NAMES("setreuid")},
#ifndef SYS_setregid
#error "capabilities.json: SYS_setregid is missing here; mark the row optional if that is right"
#endif
  {SYS_setregid, "setregid", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NAMES("setregid")},
#ifndef SYS_setresuid
#error "capabilities.json: SYS_setresuid is missing here; mark the row optional if that is right"
#endif
  {SYS_setresuid, "setresuid", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NAMES("setresuid")},
#ifndef SYS_setresgid
#error "capabilities.json: SYS_setresgid is missing here; mark the row optional if that is right"
#endif
  {SYS_setresgid, "setresgid", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NAMES("setresgid")},
#ifndef SYS_setgroups
#error "capabilities.json: SYS_setgroups is missing here; mark the row optional if that is right"
#endif
  {SYS_setgroups, "setgroups", CAT_SYSTEM, BOTH, CHECK_NONE, EPERM, NAMES("setgroups")},
#endif
