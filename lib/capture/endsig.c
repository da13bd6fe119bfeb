/*
 * endsig.c - the signals a capture ends on or must see (SIGINT, SIGTERM,
 * SIGCHLD), blocked and read from a signalfd by its poll loop (endsig.h).
 */
#include "endsig.h"
#include "util/error.h"

#include <errno.h>
#include <sys/signalfd.h>
#include <unistd.h>

int ot_endsig_open(sigset_t *old)
{
	sigset_t mask;
	int fd;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, old);
	fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0)
		ot_error_errno(errno, "cannot create a signalfd");
	return fd;
}

int ot_endsig_read(int fd, const sigset_t *old)
{
	struct signalfd_siginfo si;

	while (read(fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			continue;
		ot_verbose("signal %u: ending the capture", si.ssi_signo);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		sigprocmask(SIG_SETMASK, old, NULL);
		return 1;
	}
	return 0;
}
