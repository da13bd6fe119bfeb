/*
 * Known strings passed to functions, for -f 'take(path:str)',
 * 'take(arg1:str,flags)%ret', 'tally(n,name:str)' and
 * 'named(it->name:str)'.  Built -O2 -g; noipa keeps each signature as
 * written.  Per run:
 *   take(WORD, k, j): word k of 12 passed 2k + 1 times (1, 3, ... 23);
 *   take(LONG, ...) 3 times: 70 characters, of which 63 are read;
 *   take(COLD_A), take(COLD_B) 2 and 4 times, strings in a 64 KiB window
 *   the program never touches (the BPF program cannot read them then);
 *   tally(i, i % 3 ? "odd" : "even") for i = 0..N-1 ("odd" for i % 3 != 0);
 *   named(&it) with it.name "item" 7 times.
 * The words are read (strlen) before the calls: their page is in memory.
 * Every string but the heap's is a literal: it stays readable, in the
 * process or its file, whenever it is read.  With "ready": prints "ready
 * PID" and reads a line first, also passes a string copied into the heap
 * ("heap", 25 times: the most frequent), then prints "done" and reads another line before it
 * exits.  Prints what the report must show, "FUNCTION STRING COUNT" per
 * string.  Usage: strs [ready]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct item {
	int id;
	const char *name;
};

int take(const char *path, unsigned flags, int n);
long tally(long n, const char *name);
int named(const struct item *it);

static volatile long sink;

__attribute__((noipa)) int take(const char *path, unsigned flags, int n)
{
	sink += (long)path + flags;
	return n - 1;
}

__attribute__((noipa)) long tally(long n, const char *name)
{
	sink += (long)name;
	return n;
}

__attribute__((noipa)) int named(const struct item *it)
{
	sink += it->id;
	return it->id;
}

/* Untouched by the program: its own window of 64 KiB (page fault-around
 * maps 64 KiB windows). */
__attribute__((section("ot_cold"), aligned(65536), used))
static const char cold[65536] = "cold-a\0cold-b";

#define LONG "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-+=:;"

int main(int argc, char **argv)
{
	static const char *const words[12] = {
		"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
		"india", "juliett", "kilo", "lima",
	};
	int ready = argc > 1 && !strcmp(argv[1], "ready"), k, j, n = 300;
	struct item it = { 7, "item" };
	char line[16], *heap = NULL;
	long odd = 0;

	if (ready) {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	/* The words' page touched: the BPF program reads them in the moment. */
	for (k = 0; k < 12; k++)
		sink += (long)strlen(words[k]);
	for (k = 0; k < 12; k++)
		for (j = 0; j < 2 * k + 1; j++)
			take(words[k], (unsigned)k, j);
	for (j = 0; j < 3; j++)
		take(LONG, 100, j);
	for (j = 0; j < 2; j++)
		take(cold, 200, j);
	for (j = 0; j < 4; j++)
		take(cold + 7, 300, j);
	for (j = 0; j < n; j++) {
		tally(j, j % 3 ? "odd" : "even");
		odd += j % 3 != 0;
	}
	for (j = 0; j < 7; j++)
		named(&it);
	if (ready) {
		heap = strdup("heap");
		for (j = 0; j < 25; j++)
			take(heap, 400, j);
	}
	for (k = 0; k < 12; k++)
		printf("take %s %d\n", words[k], 2 * k + 1);
	printf("take %.63s 3\ntake cold-a 2\ntake cold-b 4\n", LONG);
	if (ready)
		printf("take heap 25\n");
	printf("tally odd %ld\ntally even %ld\nnamed item 7\n", odd, n - odd);
	if (ready) {
		printf("done\n");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	free(heap);
	return 0;
}
