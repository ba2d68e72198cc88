/*
 * Sealing every loaded object's PLT slots (docs/threat-model.md, "No memory-write features").
 *
 * An object linked with lazy binding keeps its PLT slots (.got.plt) writable for the life of the
 * process, so one memory write can point a call past the capsule (libR's popen slot at libc's own
 * popen, say). The handler starts R with LD_BIND_NOW=1, so the dynamic loader resolves every slot
 * when an object loads, dlopen()ed packages included, and nothing writes them again. When the
 * capsule arms, and after every later load, the pages that hold only PLT slots are made
 * read-only. A page the slots share with the object's other writable data (the last one, where
 * .data begins) must stay writable; the report counts the slots sealed and the slots left.
 *
 * The dynamic loader's own RELRO region (.got, .dynamic, .data.rel.ro) is read-only already; an
 * object linked with -z now keeps its slots there too.
 */
#define _GNU_SOURCE
#include "capsule.h"

#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Objects already looked at, by their program headers (unique per loaded object). Writable, and
 * harmless: clearing it only makes the next pass look at every object again. */
#define MAX_OBJECTS 2048
static const void *seen[MAX_OBJECTS];
static int n_seen;

struct tally {
  int objects;
  long slots;
  long sealed;
  int failed;
};

static int already_seen(const void *phdr) {
  for (int i = 0; i < n_seen; i++)
    if (seen[i] == phdr) return 1;
  if (n_seen < MAX_OBJECTS) seen[n_seen++] = phdr;
  return 0;
}

static int seal_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct tally *tally = data;
  if (already_seen(info->dlpi_phdr)) return 0;
  tally->objects++;
  const ElfW(Dyn) *dyn = NULL;
  uintptr_t relro_start = 0, relro_end = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_DYNAMIC) dyn = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
    if (ph->p_type == PT_GNU_RELRO) {
      relro_start = info->dlpi_addr + ph->p_vaddr;
      relro_end = relro_start + ph->p_memsz;
    }
  }
  if (!dyn) return 0;
  uintptr_t pltgot = 0;
  size_t pltrelsz = 0, relent = sizeof(ElfW(Rela));
  /* Some architectures relocate these entries in place, others do not (as real.c reads them). */
#define ABS(p) ((uintptr_t)(p) < info->dlpi_addr ? (uintptr_t)(p) + info->dlpi_addr : (uintptr_t)(p))
  for (; dyn->d_tag != DT_NULL; dyn++) {
    if (dyn->d_tag == DT_PLTGOT) pltgot = ABS(dyn->d_un.d_ptr);
    else if (dyn->d_tag == DT_PLTRELSZ) pltrelsz = dyn->d_un.d_val;
    else if (dyn->d_tag == DT_PLTREL && dyn->d_un.d_val == DT_REL) relent = sizeof(ElfW(Rel));
  }
#undef ABS
  if (!pltgot || pltrelsz == 0) return 0;
  /* The first three words are the dynamic loader's; the slots follow. */
  uintptr_t first = pltgot + 3 * sizeof(void *);
  long n = (long)(pltrelsz / relent);
  uintptr_t end = first + (uintptr_t)n * sizeof(void *);
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  /* The loader protects RELRO page by page, rounding its end down. */
  uintptr_t relro_ro_start = relro_start & ~(page - 1), relro_ro_end = relro_end & ~(page - 1);
  uintptr_t seal_from = (first + page - 1) & ~(page - 1), seal_to = end & ~(page - 1);
  if (seal_to > seal_from && mprotect((void *)seal_from, seal_to - seal_from, PROT_READ) != 0) tally->failed = 1;
  tally->slots += n;
  for (uintptr_t slot = first; slot < end; slot += sizeof(void *)) {
    int in_relro = slot >= relro_ro_start && slot + sizeof(void *) <= relro_ro_end;
    int in_sealed = seal_to > seal_from && slot >= seal_from && slot + sizeof(void *) <= seal_to;
    if (in_relro || in_sealed) tally->sealed++;
  }
  return 0;
}

static struct tally seal_new_objects(void) {
  struct tally tally = {0, 0, 0, 0};
  dl_iterate_phdr(seal_object, &tally);
  return tally;
}

int got_seal_all(char *report, size_t size) {
  if (defence_off(DEFENCE_GOT)) {
    snprintf(report, size, "got=off");
    return 0;
  }
  if (!capsule_policy.bind_now) {
    snprintf(report, size, "got: objects are bound lazily (the handler sets LD_BIND_NOW=1)");
    return -1;
  }
  struct tally tally = seal_new_objects();
  if (tally.failed) {
    snprintf(report, size, "got: a PLT page could not be made read-only");
    return -1;
  }
  snprintf(report, size, "got=sealed(objects=%d,slots=%ld/%ld)", tally.objects, tally.sealed, tally.slots);
  return 1;
}

void got_seal_new(void) {
  if (!armed() || defence_off(DEFENCE_GOT)) return;
  /* A run that loaded an object it cannot seal must not go on: it would hold writable slots the
   * arming report said were sealed. */
  if (seal_new_objects().failed) abort();
}
