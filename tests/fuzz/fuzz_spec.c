/*
 * libFuzzer target: -f lists, as a user (or a script that builds one)
 * may type them, through everything that reads them before a process is
 * touched: the options' checks (ot_options_parse), the term scanners
 * (select.h's ot_select_*), and the selection across files
 * (ot_binset_select) in a real program with USDT probes, every library
 * named resolving to a real library with probes of its own.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/options.h"
#include "lib/symbols/select.h"
#include "lib/util/error.h"
#include "lib/util/xalloc.h"

#ifndef OT_FUZZ_PROG
#define OT_FUZZ_PROG "build/targets/usdt"
#endif
#ifndef OT_FUZZ_LIB
#define OT_FUZZ_LIB "build/targets/libusdtlib.so"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int resolve(void *ctx, const char *name, char **path)
{
	(void)ctx, (void)name;
	*path = ot_xstrdup(OT_FUZZ_LIB);
	return 0;
}

static void options(char *spec)
{
	char *argv[] = { (char *)"orbit-trace", (char *)"-f", spec, (char *)"-p", (char *)"1",
			 NULL };
	struct ot_options o;
	char *msg = NULL;

	(void)ot_options_parse(&o, 5, argv, &msg);
	free(msg);
	ot_options_free(&o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ot_elf *prog;
	struct ot_selection sel;
	struct ot_binset *b;
	char *spec = ot_xmalloc(size + 1);

	memcpy(spec, data, size);
	spec[size] = 0;		/* up to its first NUL, as argv has it */
	ot_error_set_verbosity(-2);
	if (!prog && ot_elf_open(OT_FUZZ_PROG, "usdt", &prog))
		abort();
	options(spec);
	(void)ot_select_asks_values(spec);
	(void)ot_select_asks_usdt(spec);
	if (ot_select_includes(spec)) {
		b = ot_binset_new(prog, OT_FUZZ_PROG, "usdt", resolve, NULL);
		if (!ot_binset_select(b, spec, &sel))
			ot_selection_free(&sel);
		ot_binset_free(b);
	}
	free(spec);
	return 0;
}
