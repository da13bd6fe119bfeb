/*
 * ipi.h - what arming costs the machine: function-call IPIs and TLB
 * shootdowns, read from the CAL and TLB rows of /proc/interrupts (summed
 * over CPUs) before and after, the method of the static-key batching
 * series this project measures itself by.
 */
#ifndef OT_IPI_H
#define OT_IPI_H

#include <stdint.h>

struct ot_ipi {
	uint64_t cal;	/* function-call interrupts */
	uint64_t tlb;	/* TLB shootdowns */
};

/* Sum the CAL and TLB rows of text in /proc/interrupts format. */
void ot_ipi_parse(const char *text, struct ot_ipi *out);

/* Read /proc/interrupts now.  Returns 0, or -errno (then *out is zero). */
int ot_ipi_read(struct ot_ipi *out);

#endif
