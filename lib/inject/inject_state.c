/*
 * inject_state.c - the state of one instrumented process shared by
 * lib/inject's files (inject_state.h): its maps read, its memory freed.
 */
#include "inject_state.h"
#include "util/xalloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int inject_read_maps(struct ot_inject *in)
{
	ot_proc_maps_free(in->maps, in->nmaps);
	return ot_proc_maps(in->pid, inject_live_tid(in), &in->maps, &in->nmaps);
}

void inject_state_free(struct ot_inject *in)
{
	size_t i;

	if (!in)
		return;
	/* Off our robust list before its memory goes. */
	if (in->owner)
		pthread_mutex_unlock(in->owner);
	if (in->shared)
		munmap(in->shared, in->shared_len);
	if (in->memfd >= 0)
		close(in->memfd);
	for (i = 0; i < in->nreg; i++)
		free(in->reg[i].buf);
	free(in->reg);
	free(in->patches);
	free(in->semas);
	free(in->regs);
	free(in->pad_orig);
	free(in->file_path);
	if (in->file_fd >= 0)
		close(in->file_fd);
	ot_mapfile_close(&in->unwind_file);
	ot_proc_maps_free(in->maps, in->nmaps);
	free(in);
}
