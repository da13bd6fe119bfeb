/*
 * Requests that overlap, as a server's do: each begins in one call
 * (start_request) and ends in another (free_request) with the same
 * pointer, four open at once, ended in another order than begun.  Then
 * three requests ended that never began (orphans) and two begun that
 * never end (unclosed).  With "wait", it says "ready" and waits for a
 * line on stdin first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct req {
	int id;
};

static volatile long sink;

void start_request(struct req *r);
void free_request(struct req *r);

__attribute__((noinline)) void start_request(struct req *r)
{
	sink += r->id;
}

__attribute__((noinline)) void free_request(struct req *r)
{
	sink -= r->id;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, i;
	static const int order[4] = { 2, 0, 3, 1 };
	struct req *rs, stray[3], leak[2];
	char line[16];

	if (n < 4 || n % 4)
		n = 100;
	if (argc > 2 && !strcmp(argv[2], "wait")) {
		printf("ready %d\n", n);
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	rs = calloc((size_t)n, sizeof(*rs));
	if (!rs)
		return 1;
	for (i = 0; i < n; i += 4) {
		int j;

		for (j = 0; j < 4; j++) {
			rs[i + j].id = i + j;
			start_request(&rs[i + j]);
		}
		for (j = 0; j < 4; j++)
			free_request(&rs[i + order[j]]);
	}
	for (i = 0; i < 3; i++)
		free_request(&stray[i]);
	for (i = 0; i < 2; i++)
		start_request(&leak[i]);
	printf("requests %d orphans 3 unclosed 2\n", n);
	free(rs);
	return 0;
}
