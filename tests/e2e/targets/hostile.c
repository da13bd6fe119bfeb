/*
 * A process that turns what it controls against whoever reads its trace:
 * it names itself (prctl PR_SET_NAME) with a window-title escape, BEL, a
 * newline and bytes that are not UTF-8, and passes take() a string of
 * the same kind (a screen clear, a C1 CSI, a cut sequence).  take() is
 * called 5 times; prints "done" and exits 0.  With "ready": named
 * first, then prints "ready PID" and reads a line; after "done" reads
 * another before it exits.
 * Usage: hostile [ready]
 */
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int take(const char *s);

static volatile long sink;

__attribute__((noipa)) int take(const char *s)
{
	sink += s[0];
	return (int)strlen(s);
}

int main(int argc, char **argv)
{
	/* 15 bytes, the kernel's TASK_COMM_LEN - 1. */
	static const char name[] = "\x1b]0;pwn\x07\n\xff\xfe" "evil";
	static const char str[] = "a\x1b[2J\x07\n\xff\xfe\xc2\x9b" "b\xe2\x82";
	char line[16];
	int k, ready = argc > 1 && !strcmp(argv[1], "ready");

	prctl(PR_SET_NAME, name);
	if (ready) {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	for (k = 0; k < 5; k++)
		take(str);
	printf("done\n");
	fflush(stdout);
	if (ready && !fgets(line, sizeof(line), stdin))
		return 1;
	return 0;
}
