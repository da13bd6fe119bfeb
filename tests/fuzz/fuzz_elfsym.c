/*
 * libFuzzer target: the ELF symbol reader on arbitrary bytes.  The file is
 * handed over as /proc/self/fd/N of a memfd, the way a real path is.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/symbols/elfsym.h"
#include "lib/symbols/select.h"
#include "lib/util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const specs[] = { "*", "main", "m*,!ma*", "outer,inner" };
	struct ot_selection sel;
	struct ot_elf *e;
	char path[64];
	size_t i;
	int fd;

	ot_error_set_verbosity(-2);
	fd = memfd_create("fuzz-elf", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!ot_elf_open(path, "fuzz", &e)) {
		for (i = 0; i < ot_elf_nsyms(e); i++)
			(void)ot_elf_sym(e, i)->offset;
		for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
			if (!ot_elf_select(e, specs[i], &sel))
				ot_selection_free(&sel);
		ot_elf_close(e);
	}
	close(fd);
	return 0;
}
