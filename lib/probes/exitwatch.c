/*
 * exitwatch.c - the kernel's word on how a process ended (exitwatch.h):
 * the embedded BPF program loaded, its slot filled with the pid and mapped
 * here, the program attached to sched_process_exit.
 */
#include "exitwatch.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The program, compiled by clang -target bpf (lib/probes/exitwatch_obj.S). */
extern const unsigned char ot_exitwatch_obj[], ot_exitwatch_obj_end[];

/* exitwatch.bpf.c's struct ot_exitw. */
struct exitw {
	uint32_t tgid, pad;
	uint64_t exit;		/* 1 << 32 | the wait status, once exited */
};

struct ot_exitwatch {
	struct bpf_object *obj;
	struct bpf_link *link;
	volatile struct exitw *slot;	/* the map's value, mapped */
	size_t slot_len;
};

void ot_exitwatch_stop(struct ot_exitwatch *w)
{
	if (!w)
		return;
	bpf_link__destroy(w->link);
	if (w->slot)
		munmap((void *)w->slot, w->slot_len);
	bpf_object__close(w->obj);
	free(w);
}

/* The slot, mapped (BPF_F_MMAPABLE): read without a system call. */
static int map_slot(struct ot_exitwatch *w)
{
	struct bpf_map *map = bpf_object__find_map_by_name(w->obj, "ot_exitw");
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *v;

	if (!map || bpf_map__value_size(map) != sizeof(struct exitw))
		return -EINVAL;
	w->slot_len = page;
	v = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(map), 0);
	if (v == MAP_FAILED)
		return -errno;
	w->slot = v;
	return 0;
}

int ot_exitwatch_start(pid_t pid, struct ot_exitwatch **out)
{
	struct ot_exitwatch *w = ot_xcalloc(1, sizeof(*w));
	struct bpf_program *prog;
	int ret;

	*out = NULL;
	w->obj = bpf_object__open_mem(ot_exitwatch_obj,
				      (size_t)(ot_exitwatch_obj_end - ot_exitwatch_obj), NULL);
	if (!w->obj) {
		ret = -errno;
		free(w);
		return ret;
	}
	ret = bpf_object__load(w->obj);
	if (!ret)
		ret = map_slot(w);
	if (!ret) {
		w->slot->tgid = (uint32_t)pid;
		prog = bpf_object__find_program_by_name(w->obj, "ot_exit_watch");
		w->link = prog ? bpf_program__attach(prog) : NULL;
		if (!w->link)
			ret = errno ? -errno : -ENOENT;
	}
	if (ret) {
		ot_verbose("cannot watch how process %d ends on the scheduler's exit "
			   "tracepoint: %s", (int)pid, strerror(-ret));
		ot_exitwatch_stop(w);
		return ret;
	}
	*out = w;
	return 0;
}

int ot_exitwatch_status(const struct ot_exitwatch *w, int *status)
{
	uint64_t v = w ? __atomic_load_n(&w->slot->exit, __ATOMIC_ACQUIRE) : 0;

	if (!(v >> 32))
		return 0;
	*status = (int)(uint32_t)v;
	return 1;
}
