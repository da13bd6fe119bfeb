/*
 * Calls functions of a linked library (libwork.so) and, with "dlopen", of
 * a plugin loaded later (libplug.so, next to it).  With "wait" it prints
 * "ready PID" and starts on SIGUSR1.  Prints the counts it made.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int work_add(int a, int b);
int work_mul(int a, int b);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, plug = 0, i, sig;
	int (*run)(int) = NULL;
	char self[PATH_MAX], *slash;
	sigset_t go;
	ssize_t len;

	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "dlopen"))
			plug = 1;
		if (!strcmp(argv[i], "wait")) {
			sigemptyset(&go);
			sigaddset(&go, SIGUSR1);
			sigprocmask(SIG_BLOCK, &go, NULL);
			printf("ready %d\n", (int)getpid());
			fflush(stdout);
			sigwait(&go, &sig);
		}
	}
	for (i = 0; i < n; i++) {
		work_add(i, 1);
		work_mul(i, 2);
		work_mul(i, 3);
	}
	if (plug) {
		len = readlink("/proc/self/exe", self, sizeof(self) - 32);
		if (len < 0)
			return 1;
		self[len] = 0;
		slash = strrchr(self, '/');
		strcpy(slash + 1, "libplug.so");
		void *h = dlopen(self, RTLD_NOW);
		if (!h || !(run = (int (*)(int))dlsym(h, "plug_run")))
			return 1;
		for (i = 0; i < 3 * n; i++)
			run(i);
	}
	printf("{\"work_add\": %d, \"work_mul\": %d, \"plug_run\": %d}\n", n, 2 * n, plug ? 3 * n : 0);
	return 0;
}
