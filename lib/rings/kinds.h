/*
 * kinds.h - what a record is: its probe kind and its value kind, the
 * words shared by the rings (lib/rings/ring), the drain (lib/rings/drain) and the
 * layers above them (lib/probes/probes and its backends).
 *
 * Contract: plain constants, no code.  A probe id maps to one probe kind
 * (enum ot_probe_kind) and at most one value kind (OT_VALUE_*); a lookup
 * (ot_probes_lookup, ot_drain_lookup_fn) packs them into one int, the
 * probe kind in bits 0-7 and the value kind in bits 8-15.  It lives
 * below the rings so that they need nothing from the layers that arm
 * probes.  The value kinds are the BPF program's too (the top byte of a
 * probe's cookie, read by lib/probes/uprobe_multi.bpf.c): change their numbers
 * in both places or in neither.
 */
#ifndef OT_KINDS_H
#define OT_KINDS_H

/* What a sample's probe is: ot_probes_lookup's *kind. */
enum ot_probe_kind {
	OT_PROBE_ENTRY = 0,
	OT_PROBE_URETPROBE = 1,
	OT_PROBE_RET_INSN = 2,
	OT_PROBE_TAIL_RET = 3,	/* a return instruction of a tail callee */
	OT_PROBE_EXACT_RET = 4,	/* a return carrying its call's entry SP (inject) */
	OT_PROBE_TAIL_ENTRY = 5, /* an entry by a jump from a traced function (inject) */
	OT_PROBE_POINT = 6,	/* a USDT probe's site: counted, no scope */
	/* One more value of a function's entry ("read(arg1,arg3)"'s arg3):
	 * a probe at the entry recording it alone, its slot (0 for the
	 * function's second value) in bits OT_VALUE_SLOT_SHIFT and up of the
	 * kind; no scope. */
	OT_PROBE_VALUE = 7,
};

/* Where a value probe's slot sits in its kind (and the id table's packed
 * int: above the value kind's bits 8-21). */
#define OT_VALUE_SLOT_SHIFT 24

/* Which value a probe records: 0 none, OT_VALUE_ARG1 + n - 1 for
 * argument n, OT_VALUE_RET the return value. */
#define OT_VALUE_ARG1 1
#define OT_VALUE_RET 15
/* A USDT argument the BPF program read and sized itself (multi): the
 * cookie's bits 32-47 index its spec in the program's ot_usdt_specs. */
#define OT_VALUE_USDT 14
/*
 * A USDT argument in a register, read from the sample (perf): the
 * register perf numbers reg (asm/perf_regs.h), its bits taken by
 * OT_VALUE_REG_SIZE: bits 8-11 the bytes, bit 12 signed, bit 13 from bit
 * 8 (%ah).  Only in a value selector (ot_record_value's sel), whose bits
 * 8 and up the id table keeps with it.
 */
#define OT_VALUE_REG0 16
/*
 * With a value selector: the value is a string's address, its string
 * the event's (the drain keeps it in its lib/rings/strtab and hands on
 * the id).  Not a register: the drain masks it out of the selector.
 */
#define OT_VALUE_STR (1 << 22)
#define OT_VALUE_REG(reg) (OT_VALUE_REG0 + (reg))
#define OT_VALUE_REG_SIZE(bytes, is_signed, high) \
	((bytes) << 8 | (is_signed) << 12 | (high) << 13)

#endif
