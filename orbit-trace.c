/*
 * orbit-trace - count and time user-space functions of a live process
 * with uprobes.  This file is the command line and the top of the life
 * cycle: options -> capture (open, arm, run, report) -> exit status.  The
 * engine is lib/capture/capture.c; lib/ has one file per step of the data flow.
 */
#include "lib/capture/capture.h"
#include "lib/util/error.h"
#include "lib/cli/options.h"
#include "lib/capture/restore.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef OT_VERSION
#define OT_VERSION "0.1.0"
#endif
#ifndef OT_ELFUTILS_VERSION
#define OT_ELFUTILS_VERSION "unknown"
#endif
#ifndef OT_LIBCAP_VERSION
#define OT_LIBCAP_VERSION "unknown"
#endif
#ifndef OT_MHD_VERSION
#define OT_MHD_VERSION "unknown"
#endif
#ifndef OT_LIBBPF_VERSION
#define OT_LIBBPF_VERSION "unknown"
#endif

/* The documented exit statuses (orbit-trace(1), EXIT STATUS). */
enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2, EXIT_CHECK = 3 };

static int exit_status(enum ot_capture_result r)
{
	switch (r) {
	case OT_CAPTURE_OK:
	case OT_CAPTURE_DONE:
		return EXIT_OK;
	case OT_CAPTURE_BAD_INPUT:
		return EXIT_USAGE;
	case OT_CAPTURE_CHECK_FAILED:
		return EXIT_CHECK;
	case OT_CAPTURE_FAILED:
		break;
	}
	return EXIT_RUNTIME;
}

static void version(void)
{
	const struct ot_backend_info *b;
	size_t i;

	printf("orbit-trace %s\nbackends:", OT_VERSION);
	/* auto (0) is a choice among the others, not a backend. */
	for (i = 1; (b = ot_backend_at(i)); i++)
		printf("%s %s (%s)", i > 1 ? "," : "", b->name, b->built_on);
	printf("\ndemangler: libiberty (C++ Itanium ABI, Rust legacy and v0)\n"
	       "built with: elfutils %s, libcap %s, libmicrohttpd %s\n", OT_ELFUTILS_VERSION,
	       OT_LIBCAP_VERSION, OT_MHD_VERSION);
}

int main(int argc, char **argv)
{
	enum ot_capture_result r = OT_CAPTURE_OK;
	struct ot_capture *c;
	struct ot_options o;
	struct ot_capture_opts co;
	int sigpipe_ignored;
	char *msg;

	switch (ot_options_parse(&o, argc, argv, &msg)) {
	case OT_OPTIONS_HELP:
		fputs(ot_usage_text, stdout);
		ot_options_free(&o);
		return EXIT_OK;
	case OT_OPTIONS_VERSION:
		version();
		ot_options_free(&o);
		return EXIT_OK;
	case OT_OPTIONS_BAD:
		ot_error("%s\nTry 'orbit-trace --help' for more information.", msg ? msg : "bad usage");
		free(msg);
		ot_options_free(&o);
		return EXIT_USAGE;
	case OT_OPTIONS_RUN:
		break;
	}
	ot_error_set_verbosity(o.verbosity);
	/* A write to a closed output is an error of ours, not a death; the
	 * command gets the disposition we were given. */
	sigpipe_ignored = signal(SIGPIPE, SIG_IGN) == SIG_IGN;
	ot_options_capture(&o, &co);
	if (o.restore) {
		r = ot_capture_restore(&co);
		ot_options_free(&o);
		return exit_status(r);
	}
	c = ot_capture_new(&co, sigpipe_ignored);
	r = ot_capture_open(c);
	if (r == OT_CAPTURE_OK)
		r = ot_capture_arm(c);
	if (r == OT_CAPTURE_OK)
		r = ot_capture_run(c);
	if (r == OT_CAPTURE_OK)
		r = ot_capture_report(c);
	ot_capture_free(c);
	ot_options_free(&o);
	return exit_status(r);
}
