/*
 * inject_pad.h - a system-call gadget for the calls made while no region
 * of ours is mapped in the process (the first region's mmap, the last
 * munmap): the runtime's gadget and its saved registers copied into the
 * padding after an executable segment of a file the process maps (bytes
 * of the mapped page past the segment's end, which no code of the file
 * reaches), then put back as they were.  For lib/inject/inject_region.c
 * and inject_remove.c, with every thread of the process held.
 */
#ifndef OT_INJECT_PAD_H
#define OT_INJECT_PAD_H

struct ot_inject;

/*
 * Copy the gadget into a padding (in->maps as read last) and make it the
 * tracee's gadget (in->t->gadget, gadget_saved): 0, or -ENOSPC when no
 * file has room (system calls then run at the thread's own instruction,
 * stepped) or -errno of the write.
 */
int inject_pad_set(struct ot_inject *in);

/* The padding's bytes put back and the gadget forgotten (t->gadget 0). */
void inject_pad_clear(struct ot_inject *in);

#endif
