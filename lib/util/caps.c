/*
 * caps.c - the capabilities the uprobe PMU needs checked with libcap before
 * trying, so a bare EACCES becomes a message saying what is missing (caps.h).
 */
#include "caps.h"
#include "error.h"
#include "arch/arch.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/capability.h>

int ot_caps_have(int cap)
{
	cap_t caps = cap_get_proc();
	cap_flag_value_t v = CAP_CLEAR;

	if (!caps)
		return 0;
	if (cap_get_flag(caps, (cap_value_t)cap, CAP_EFFECTIVE, &v))
		v = CAP_CLEAR;
	cap_free(caps);
	return v == CAP_SET;
}

int ot_caps_have_sys_admin(void)
{
	return ot_caps_have(CAP_SYS_ADMIN);
}

int ot_caps_check(void)
{
	cap_t caps;
	char *text;

	if (ot_caps_have_sys_admin())
		return 0;
	caps = cap_get_proc();
	text = caps ? cap_to_text(caps, NULL) : NULL;
	ot_error("cannot arm uprobes: the uprobe PMU needs CAP_SYS_ADMIN "
		 "(CAP_PERFMON is not enough); this process has %s; "
		 "run it with sudo (see PERMISSIONS in orbit-trace(1))%s",
		 text && strcmp(text, "=") ? text : "no capabilities",
#if OT_ARCH_INJECT
		 ", or without uprobes: --backend inject needs only ptrace"
#else
		 ""
#endif
		 );
	/* cap_to_text writes e.g. "cap_perfmon=ep"; "=" is the empty set. */
	cap_free(text);
	cap_free(caps);
	return -EPERM;
}

/* Keep cap in the effective and permitted sets of caps, if the process has it. */
static int keep(cap_t caps, cap_value_t cap)
{
	cap_t now = cap_get_proc();
	cap_flag_value_t v = CAP_CLEAR;
	int ret = 0;

	if (now && !cap_get_flag(now, cap, CAP_PERMITTED, &v) && v == CAP_SET &&
	    (cap_set_flag(caps, CAP_EFFECTIVE, 1, &cap, CAP_SET) ||
	     cap_set_flag(caps, CAP_PERMITTED, 1, &cap, CAP_SET)))
		ret = -errno;
	cap_free(now);
	return ret;
}

int ot_caps_drop(int keep_kill, int keep_ptrace)
{
	cap_t caps = cap_init(); /* all sets empty */
	int ret = 0;

	if (!caps)
		return -errno;
	if (keep_kill)
		ret = keep(caps, CAP_KILL);
	if (!ret && keep_ptrace)
		ret = keep(caps, CAP_SYS_PTRACE);
	if (!ret && cap_set_proc(caps))
		ret = -errno;
	cap_free(caps);
	return ret;
}
