/*
 * A program that calls before() and then execs the program it is given
 * (a set-user-ID one, in the tests), as a wrapper would; and that program,
 * built from the same file as "suidcheck": prints its effective uid and
 * exits 0 when it has its owner's (root's) privileges, 7 without them.
 * Usage: execsuid PROGRAM | suidcheck
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int before(int i);

static volatile int sink;

__attribute__((noinline)) int before(int i)
{
	sink += i;
	return sink;
}

int main(int argc, char **argv)
{
	const char *me = strrchr(argv[0], '/');

	if (!strcmp(me ? me + 1 : argv[0], "suidcheck")) {
		printf("euid %d\n", (int)geteuid());
		return geteuid() == 0 ? 0 : 7;
	}
	before(argc);
	if (argc < 2)
		return 2;
	fflush(stdout);
	execv(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
