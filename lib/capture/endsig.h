/*
 * endsig.h - the signals a capture waits for, as a file descriptor its
 * poll loop reads: SIGINT and SIGTERM end the capture (the report is
 * still printed), SIGCHLD is a process held with ptrace stopping (the
 * backend that holds it must see it).  They are blocked while the capture runs; the command it
 * starts gets the old mask back.  Called by lib/capture/capture.
 */
#ifndef OT_ENDSIG_H
#define OT_ENDSIG_H

#include <signal.h>

/* Block the three and open a signalfd for them, the old mask in *old.
 * Returns the fd, or -1 after printing why. */
int ot_endsig_open(sigset_t *old);

/*
 * Read what is waiting on fd.  1 when SIGINT or SIGTERM came: then a
 * second one ends orbit-trace at once, even if it was started ignoring
 * them (sh's "&"), so the default actions and old mask are back.  0 when
 * nothing but SIGCHLD did.
 */
int ot_endsig_read(int fd, const sigset_t *old);

#endif
