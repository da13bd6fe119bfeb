/*
 * A hostile target (tests/e2e/container.sh): it maps a file of its own,
 * passes a string in it to take() while the page is still untouched (no
 * probe can read it in the moment), then unmaps it and puts in the
 * file's place a symbolic link to another file (to make a root tracer
 * read that file for it) or a FIFO (to make it block opening it).
 * Usage: planted DIR TARGET|fifo.  Prints "ready PID", starts on
 * SIGUSR1, prints "planted", then waits for SIGUSR1 again to exit.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int take(const char *s);

__attribute__((noinline)) int take(const char *s)
{
	__asm__ volatile("" : : "r"(s) : "memory");
	return 0;
}

int main(int argc, char **argv)
{
	char data[4096], tmp[4096], page[4096] = "a string of the target's own file";
	sigset_t set;
	char *p;
	int fd, sig;

	if (argc != 3)
		return 2;
	snprintf(data, sizeof(data), "%s/data", argv[1]);
	snprintf(tmp, sizeof(tmp), "%s/data.new", argv[1]);
	fd = open(data, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, page, sizeof(page)) != (ssize_t)sizeof(page))
		return 1;
	/* Mapped, never touched here: its page is not in memory yet. */
	p = mmap(NULL, sizeof(page), PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return 1;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	sigwait(&set, &sig);
	take(p);
	munmap(p, sizeof(page));
	if (!strcmp(argv[2], "fifo") ? mkfifo(tmp, 0644) : symlink(argv[2], tmp))
		return 1;
	if (rename(tmp, data))
		return 1;
	printf("planted\n");
	fflush(stdout);
	sigwait(&set, &sig);
	return 0;
}
