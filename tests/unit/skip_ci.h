/*
 * skip_ci.h - a unit test that cannot run on this machine (a system file it
 * reads is missing) skips; in CI (CI=true, as .ci/run sets it) that is a
 * failure instead, as for the end-to-end tests: CI's machine has what
 * `make deps` installs, and a silent skip there would hide a test gone.
 * Include after <cmocka.h>.
 */
#ifndef OT_SKIP_CI_H
#define OT_SKIP_CI_H

#include <stdlib.h>
#include <string.h>

#define ot_skip(why)                                                        \
	do {                                                                \
		const char *ci_ = getenv("CI");                             \
		if (ci_ && !strcmp(ci_, "true"))                            \
			fail_msg("cannot run in CI: %s", why);              \
		skip();                                                     \
	} while (0)

#endif
