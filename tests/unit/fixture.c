/*
 * ELF fixture for test_elfsym, built PIE and non-PIE.  Run as
 * "fixture NAME" it prints the file offset of its function NAME as the
 * loader mapped it (from /proc/self/maps), an oracle independent of the
 * ELF reader under test.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fixture_alpha(void);
void fixture_beta(void);
void fixture_alias(void);
int fixture_data = 42;

__attribute__((noinline)) void fixture_alpha(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void fixture_beta(void)
{
	fixture_alpha();
	__asm__ volatile("" ::: "memory");
}

/* A second name for fixture_alpha: one address, so it must be armed once. */
void fixture_alias(void) __attribute__((alias("fixture_alpha")));

/*
 * Tables of code pointers, as a jump through one reads them: one the
 * program cannot change (in a PIE, relocated once by the loader, then
 * read-only: RELRO), one it can.
 */
void (*const fixture_table[])(void) = { fixture_alpha, fixture_beta, 0 };
void (*fixture_hooks[])(void) = { fixture_alpha, fixture_beta };

int main(int argc, char **argv)
{
	unsigned long addr, lo, hi, off;
	char line[512], perms[8];
	FILE *maps;

	if (argc != 2)
		return 2;
	if (!strcmp(argv[1], "fixture_alpha"))
		addr = (unsigned long)&fixture_alpha;
	else if (!strcmp(argv[1], "fixture_beta"))
		addr = (unsigned long)&fixture_beta;
	else
		return 2;
	maps = fopen("/proc/self/maps", "r");
	if (!maps)
		return 1;
	while (fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%lx-%lx %7s %lx", &lo, &hi, perms, &off) != 4)
			continue;
		if (addr >= lo && addr < hi) {
			printf("%lu\n", addr - lo + off);
			fclose(maps);
			return 0;
		}
	}
	fclose(maps);
	return 1;
}
