/*
 * xalloc.c - allocation that cannot fail (xalloc.h): out of memory prints one
 * line and aborts.
 */
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *check(void *p)
{
	/* No caller can go on without the memory, and lib/ never exits:
	 * stop here, loudly (the kernel releases every probe and ring). */
	if (!p) {
		fputs("orbit-trace: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *ot_xmalloc(size_t size)
{
	return check(malloc(size ? size : 1));
}

void *ot_xcalloc(size_t nmemb, size_t size)
{
	return check(calloc(nmemb ? nmemb : 1, size ? size : 1));
}

void *ot_xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	return check(reallocarray(ptr, nmemb ? nmemb : 1, size ? size : 1));
}

char *ot_xstrdup(const char *s)
{
	return s ? check(strdup(s)) : NULL;
}
