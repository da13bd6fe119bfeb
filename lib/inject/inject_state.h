/*
 * inject_state.h - the state of one instrumented process (struct
 * ot_inject) and what the parts of --backend inject share about it: the
 * runtime's symbols as assembled into orbit-trace, the layout of a code
 * region, a patch, a function's plan.  For lib/inject/inject.c and the
 * lib/inject/inject_*.c files only (each of which does one job on this state);
 * everyone else goes through lib/inject/inject.h.
 *
 * Who fills what: inject.c (attach, install, remove, free) owns the
 * struct and its lifetime, inject_state.c reads its maps and frees its
 * memory; inject_region.c maps the regions and data; inject_remove.c
 * takes back what is ours; inject_pad.c lends a gadget while none is;
 * inject_tramp.c plans functions and writes trampolines and patches;
 * inject_facts.c reads the process's refusals, thread-id offset and
 * clock; inject_unwind.c the unwinders; inject_recover.c the recovery
 * table.  None of them exits; they print only where their header says.
 */
#ifndef OT_INJECT_STATE_H
#define OT_INJECT_STATE_H

#include "inject.h"
#include "inject_layout.h"
#include "relocate.h"
#include "trampcode.h"
#include "process/mapfile.h"
#include "process/procfs.h"
#include "process/tracee.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* The runtime (lib/arch/x86_64/inject_rt.S), as assembled into orbit-trace. */
extern const unsigned char ot_inj_rt_start[], ot_inj_rt_end[];
extern const unsigned char ot_inj_rt_priv[], ot_inj_rt_shared[], ot_inj_rt_areas[],
	ot_inj_rt_vdso[], ot_inj_rt_ring_mask[], ot_inj_rt_area_bytes[], ot_inj_rt_quarter[],
	ot_inj_rt_tid_off[],
	ot_inj_rt_nareas[], ot_inj_rt_clock[], ot_inj_rt_fsbase[], ot_inj_rt_syscall[], ot_inj_rt_saved[],
	ot_inj_rt_entry[], ot_inj_rt_ret_lo[], ot_inj_rt_ret[], ot_inj_rt_ret_end[],
	ot_inj_rt_find_fde[], ot_inj_rt_point[], ot_inj_rt_exit[];

#define RT_OFF(sym) ((size_t)((sym) - ot_inj_rt_start))

/* A code region: its head (lib/inject/inject_layout.h), then in the first the
 * runtime, then the trampolines. */
#define REG_ENTRY_SLOT	OT_INJ_REG_ENTRY_SLOT
#define REG_FDE_SLOT	OT_INJ_REG_FDE_SLOT
#define REG_NAME	OT_INJ_REG_NAME
#define REG_HEAD	OT_INJ_REG_HEAD
#define REG_POINT_SLOT	OT_INJ_REG_POINT_SLOT
#define REG_EXIT_SLOT	OT_INJ_REG_EXIT_SLOT
#define TRAMP_MAX	192	/* a trampoline: prologue + moved code + jmp back */
#define TRAMP_POINT_MAX	OT_RELOC_MAX	/* a USDT site's: its probes' code among them */
#define TRAMP_PROLOGUE	OT_TRAMP_ENTRY_LEN	/* an entry's head (lib/arch) */
#define HOOK_PROLOGUE	OT_TRAMP_HOOK_LEN	/* a hook's */
#define CODE_MAX	(1ull << 20) /* bytes of a function read to relocate it */

struct region {
	uint64_t addr;		/* in the process */
	size_t size, used;
	uint8_t *buf;		/* its content, written at once */
	const struct ot_proc_map *text;	/* the text it serves */
};

/* A patched entry, to restore. */
struct patch {
	uint64_t addr;
	uint8_t orig[OT_PATCH_LEN];
	uint8_t jmp[OT_PATCH_LEN];	/* jmp rel32 to its trampoline */
	size_t covered;		/* bytes from addr its trampoline runs instead */
	size_t fn;		/* the number its records carry (ot_inject_fn.id); SIZE_MAX: a hook */
};

struct ot_inject {
	pid_t pid;
	struct ot_inject_opts o;
	struct ot_tracee *t;	/* the caller's: it holds the process */
	int stopped;
	uint64_t t_stop;
	struct ot_proc_map *maps;
	size_t nmaps;
	/* inject_region.c (inject_recover.c when reading back a table): */
	struct region *reg;
	size_t nreg;
	uint64_t rt;		/* the runtime in the process (first region) */
	uint64_t rt_ret;	/* where hijacked frames return, there */
	/* inject_pad.c: the gadget in a file's padding while no region is
	 * mapped, and the bytes it took there; 0, NULL. */
	uint64_t pad;
	uint8_t *pad_orig;
	uint64_t priv;		/* the private region */
	uint64_t shared_t;	/* the shared region, there */
	void *shared;		/* and here */
	size_t shared_len;
	int memfd;
	struct patch *patches;
	size_t npatches;
	uint64_t *semas;	/* inject_sema.c: USDT semaphores, raised while patched */
	size_t nsemas;
	uint32_t tid_off;	/* inject_facts.c: glibc's struct pthread tid */
	int fsbase;		/* and whether rdfsbase works there */
	struct user_regs_struct *regs;	/* each stopped thread's, read once */
	int execd;		/* its program is gone (the process exec'd) */
	pthread_mutex_t *owner;	/* in the shared header, held (hold_owner) */
	/* inject_tramp.c: the file last read, for the functions of one file
	 * in a row. */
	char *file_path;
	int file_fd;
	struct stat file_st;
	/* inject_unwind.c: libgcc_s as the process maps it, for its hook. */
	struct ot_mapfile unwind_file;
	uint64_t vdso_fn;	/* inject_facts.c: __vdso_clock_gettime there */
	char why[256];		/* a refusal's words (inject_refuse_process) */
	int clock;		/* inject_facts.c: OT_INJ_CLOCK_* */
	const char *clock_why;	/* and why that one */
	size_t patched;		/* functions patched */
	uint64_t leak_check;	/* LeakSanitizer's StopTheWorld, trapped (an int3
				 * patch), or 0 (inject_facts.c) */
	uint64_t exec_trap;	/* execve's, trapped (inject_traps.c), or 0 */
	uint8_t exec_orig;	/* the byte its int3 replaced */
	int exec_trap_out;	/* taken out while a vfork child runs */
	unsigned vforks;	/* vfork children running (ot_inject_vfork) */
	int removed;		/* ot_inject_remove took everything back */
	struct ot_inject_stats info;	/* what it did, for the report */
};

/* A function's place in the process, planned before anything is mapped. */
struct ot_coderefs;

struct plan {
	uint64_t addr;		/* the function in the process */
	const struct ot_proc_map *text;
	size_t reg;		/* its code region; SIZE_MAX: none */
	size_t reserve;		/* room its trampoline may take there */
	uint8_t *code;		/* its bytes, from the process */
	size_t len;
	/* A USDT site's: what in its file may jump into a patch, and the
	 * link-time address of the code's start. */
	const struct ot_coderefs *refs;
	uint64_t vaddr;
};

/* A thread of the process that runs: its memory, maps and program are the
 * process's (a first thread that ended has none). */
static inline pid_t inject_live_tid(const struct ot_inject *in)
{
	return in->t && in->t->n ? in->t->tids[0] : in->pid;
}

/* in->maps read again (freed first): 0, or -errno with none. */
int inject_read_maps(struct ot_inject *in);

/* Everything in holds of ours in this process, and in itself (not the
 * process's: inject_take_back undoes that). */
void inject_state_free(struct ot_inject *in);

#endif
