/*
 * A program holding a secret, for -a -f 'secret:check_password(arg1:str)'
 * under a capability install (tests/e2e/capinstall.sh): prints "ready
 * PID", then for each line read calls check_password(SECRET) COUNT times
 * and prints "done"; exits at end of input.  With "nodump" it first makes
 * itself not dumpable (prctl), as ssh-agent does.
 * Usage: secret SECRET COUNT [nodump]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int check_password(const char *pw);

static volatile long sink;

__attribute__((noipa)) int check_password(const char *pw)
{
	sink += (long)strlen(pw);
	return pw[0] == 'x';
}

int main(int argc, char **argv)
{
	char line[64];
	long i, n;

	if (argc < 3 || (n = strtol(argv[2], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: secret SECRET COUNT [nodump]\n");
		return 2;
	}
	if (argc > 3 && !strcmp(argv[3], "nodump") && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)) {
		perror("prctl");
		return 1;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		for (i = 0; i < n; i++)
			check_password(argv[1]);
		printf("done\n");
		fflush(stdout);
	}
	return 0;
}
