#!/usr/bin/env python3
"""Write a C program with N distinct functions f0000..f{N-1}, for arming
at scale (tests/e2e/many.sh, scripts/arm-cost.sh).

    gen-funcs.py N OUT.c

The program, run as
    PROG count R   calls f_i (i % 5 + 1) times per round, R rounds, from
                   one thread, then exits: exact counts to check;
    PROG spin      keeps one thread per online CPU calling every function,
                   without pause, until killed: a target busy on every CPU;
                   prints "ready PID" once its threads run, for -p, and
                   "continued" each time a SIGCONT continues it.
Each function adds its own constant, so the compiler cannot fold them into
one (GCC's -fipa-icf would, and the probes would then share an address).
"""
import sys

n, out = int(sys.argv[1]), sys.argv[2]
with open(out, "w") as f:
    f.write("#include <pthread.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
            "#include <signal.h>\n#include <unistd.h>\nstatic volatile long sink;\n")
    for i in range(n):
        f.write("__attribute__((noinline)) void f%04d(void) { sink += %d; }\n" % (i, i + 1))
    f.write("static void (*const tab[])(void) = {\n")
    f.write(",\n".join("f%04d" % i for i in range(n)))
    f.write("\n};\n#define N %d\n" % n)
    f.write("""
static void continued(int sig)
{
	(void)sig;
	if (write(1, "continued\\n", 10) != 10)
		_exit(3);
}

static void *spin(void *a)
{
	(void)a;
	for (;;) {
		for (int i = 0; i < N; i++)
			tab[i]();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "count")) {
		long rounds = atol(argv[2]);

		for (long r = 0; r < rounds; r++)
			for (int i = 0; i < N; i++)
				for (int k = 0; k <= i % 5; k++)
					tab[i]();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "spin")) {
		pthread_t t;

		signal(SIGCONT, continued);
		for (long c = 1; c < sysconf(_SC_NPROCESSORS_ONLN); c++)
			pthread_create(&t, NULL, spin, NULL);
		printf("ready %d\\n", (int)getpid());
		fflush(stdout);
		spin(NULL);
	}
	return 2;
}
""")
