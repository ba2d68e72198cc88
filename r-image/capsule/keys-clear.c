/*
 * jube-keys-clear: empties the kernel key anchors of the calling user, which outlive every process.
 *
 * A key linked into the user keyring (@u), the user-session keyring (@us) or the persistent
 * keyring belongs to the user namespace, not to a process: no kill, file wipe or Lambda reset
 * removes it, and the next run of the same user reads it back. Where nothing filters add_key
 * (Lambda: no seccomp of the function's own), a script with native code can leave one, and can
 * hide it from /proc/keys by taking the view permission away. Node cannot call keyctl, so the
 * handler's hygiene runs this. @u and @us get the kernel's default permission back (so a run that
 * took away write or view leaves them clearable, while it left setattr), each anchor is cleared and
 * read back: it must hold nothing (@us: only @u, relinked as the kernel makes it). Keys linked
 * nowhere else are freed by the kernel's collector. A run that also took away setattr leaves an
 * anchor its own user can no longer change: then this fails, and the handler refuses every later
 * run in the environment.
 *
 * Prints one line: `cleared`, `unavailable <errno>` (the kernel or a seccomp filter refuses
 * keyctl, so no run can have left a key either) or `failed <step> <errno>` (exit status 1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/keyctl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The permission the kernel gives @u and @us: possessor all but setattr, user all. */
#define ANCHOR_PERM 0x1f3f0000

static long keyctl5(int op, long a, long b, long c, long d) { return syscall(SYS_keyctl, op, a, b, c, d); }

static int fail(const char *step) {
  printf("failed %s %s\n", step, strerrorname_np(errno) ? strerrorname_np(errno) : "?");
  return 1;
}

/* How many keys `id` links (KEYCTL_READ of a keyring returns their serials); -1 on error. */
static long links(long id, long *first) {
  int serials[64];
  long n = keyctl5(KEYCTL_READ, id, (long)serials, sizeof serials, 0);
  if (n < 0) return -1;
  if (n >= (long)sizeof(int) && first) *first = serials[0];
  return n / (long)sizeof(int);
}

static int empty(long id, const char *name, long perm) {
  if (perm && keyctl5(KEYCTL_SETPERM, id, perm, 0, 0) != 0) return fail(name);
  if (keyctl5(KEYCTL_CLEAR, id, 0, 0, 0) != 0) return fail(name);
  if (links(id, NULL) != 0) return fail(name);
  return 0;
}

int main(void) {
  long user = keyctl5(KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 1, 0, 0);
  if (user < 0) {
    /* ENOSYS: no key support, or a seccomp filter (podman's answers so); EPERM: a filter that
     * answers so. No permission of a key can make this lookup fail with either. */
    if (errno == ENOSYS || errno == EPERM) {
      printf("unavailable %s\n", strerrorname_np(errno));
      return 0;
    }
    return fail("user-keyring");
  }
  if (empty(KEY_SPEC_USER_KEYRING, "user-keyring", ANCHOR_PERM)) return 1;
  if (empty(KEY_SPEC_USER_SESSION_KEYRING, "user-session-keyring", ANCHOR_PERM)) return 1;
  if (keyctl5(KEYCTL_LINK, KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING, 0, 0) != 0) return fail("user-session-keyring");
  long first = -1;
  if (links(KEY_SPEC_USER_SESSION_KEYRING, &first) != 1 || first != user) return fail("user-session-keyring");
  /* The persistent keyring, where the kernel has them; linking it here is how it is reached. */
  long persistent = keyctl5(KEYCTL_GET_PERSISTENT, -1, KEY_SPEC_PROCESS_KEYRING, 0, 0);
  if (persistent >= 0) {
    if (empty(persistent, "persistent-keyring", 0)) return 1;
  } else if (errno != EOPNOTSUPP && errno != ENOSYS) {
    return fail("persistent-keyring");
  }
  printf("cleared\n");
  return 0;
}
