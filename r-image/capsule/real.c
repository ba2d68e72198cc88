/* The real libc functions behind the interposed ones. */
#define _GNU_SOURCE
#include "capsule.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------- */
/* The real functions. dlsym itself is interposed, so the real one is found in libc's dynamic  */
/* symbol table directly; every other real function then comes from dlsym(RTLD_NEXT, name).    */
/* ------------------------------------------------------------------------------------------- */

struct elf_search {
  const char *name;
  void *found;
};

static uint32_t gnu_hash(const char *s) {
  uint32_t h = 5381;
  for (; *s; s++) h = (h << 5) + h + (unsigned char)*s;
  return h;
}

static uint32_t sysv_hash(const char *s) {
  uint32_t h = 0, g;
  for (; *s; s++) {
    h = (h << 4) + (unsigned char)*s;
    g = h & 0xf0000000u;
    if (g) h ^= g >> 24;
    h &= ~g;
  }
  return h;
}

static int find_in_libc(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct elf_search *search = data;
  const char *slash = strrchr(info->dlpi_name, '/');
  const char *base = slash ? slash + 1 : info->dlpi_name;
  if (strncmp(base, "libc.so", 7) != 0) return 0;
  const ElfW(Dyn) *dyn = NULL;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
      dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
  if (!dyn) return 0;
  const ElfW(Sym) *symtab = NULL;
  const char *strtab = NULL;
  const uint32_t *gnu = NULL, *sysv = NULL;
  /* Some architectures relocate these entries in place, others do not. */
#define ABS(p) ((uintptr_t)(p) < info->dlpi_addr ? (uintptr_t)(p) + info->dlpi_addr : (uintptr_t)(p))
  for (; dyn->d_tag != DT_NULL; dyn++) {
    if (dyn->d_tag == DT_SYMTAB) symtab = (const ElfW(Sym) *)ABS(dyn->d_un.d_ptr);
    else if (dyn->d_tag == DT_STRTAB) strtab = (const char *)ABS(dyn->d_un.d_ptr);
    else if (dyn->d_tag == DT_GNU_HASH) gnu = (const uint32_t *)ABS(dyn->d_un.d_ptr);
    else if (dyn->d_tag == DT_HASH) sysv = (const uint32_t *)ABS(dyn->d_un.d_ptr);
  }
#undef ABS
  if (!symtab || !strtab) return 0;
  if (gnu) {
    uint32_t nbuckets = gnu[0], symoffset = gnu[1], bloom_size = gnu[2];
    const ElfW(Addr) *bloom = (const ElfW(Addr) *)&gnu[4];
    const uint32_t *buckets = (const uint32_t *)&bloom[bloom_size];
    const uint32_t *chain = &buckets[nbuckets];
    uint32_t h = gnu_hash(search->name);
    uint32_t index = buckets[h % nbuckets];
    if (index < symoffset) return 0;
    for (;; index++) {
      const ElfW(Sym) *sym = &symtab[index];
      uint32_t hh = chain[index - symoffset];
      if ((h | 1) == (hh | 1) && sym->st_shndx != SHN_UNDEF && strcmp(strtab + sym->st_name, search->name) == 0) {
        search->found = (void *)(info->dlpi_addr + sym->st_value);
        return 1;
      }
      if (hh & 1) break;
    }
  } else if (sysv) {
    uint32_t nbucket = sysv[0];
    const uint32_t *bucket = &sysv[2], *chain = &sysv[2 + nbucket];
    for (uint32_t i = bucket[sysv_hash(search->name) % nbucket]; i; i = chain[i]) {
      const ElfW(Sym) *sym = &symtab[i];
      if (sym->st_shndx != SHN_UNDEF && strcmp(strtab + sym->st_name, search->name) == 0) {
        search->found = (void *)(info->dlpi_addr + sym->st_value);
        return 1;
      }
    }
  }
  return 0;
}

static void *libc_symbol(const char *name) {
  struct elf_search search = {name, NULL};
  dl_iterate_phdr(find_in_libc, &search);
  return search.found;
}

/* Cached, and found again whenever the cache is clear. */
static dlsym_fn dlsym_cache;
static dlvsym_fn dlvsym_cache;

dlsym_fn libc_dlsym(void) {
  if (!dlsym_cache) dlsym_cache = (dlsym_fn)libc_symbol("dlsym");
  return dlsym_cache;
}

dlvsym_fn libc_dlvsym(void) {
  if (!dlvsym_cache) dlvsym_cache = (dlvsym_fn)libc_symbol("dlvsym");
  return dlvsym_cache;
}

/* RTLD_NEXT from here: the definition after this library (libc's, for everything interposed). */
void *next_symbol(const char *name) {
  dlsym_fn find = libc_dlsym();
  return find ? find(RTLD_NEXT, name) : NULL;
}


REAL(ssize_t, readlink, (const char *, char *, size_t))
REAL(long, syscall, (long, ...))
REAL(int, openat, (int, const char *, int, ...))
REAL(char *, realpath, (const char *, char *))
REAL(int, fstatat, (int, const char *, struct stat *, int))

/* The capsule's own uses of functions it also interposes go straight to libc. */
ssize_t capsule_readlink(const char *path, char *buf, size_t size) { return real_readlink()(path, buf, size); }
long capsule_syscall(long nr, long a0, long a1, long a2, long a3, long a4, long a5) {
  return real_syscall()(nr, a0, a1, a2, a3, a4, a5);
}
char *capsule_realpath(const char *path, char *out) { return real_realpath()(path, out); }
int capsule_open_path(const char *path) { return real_openat()(AT_FDCWD, path, O_PATH | O_CLOEXEC, 0); }
int capsule_regular_file(const char *path) {
  struct stat st;
  return real_fstatat()(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}
