/*
 * xalloc.h - allocation that cannot fail.
 *
 * Out of memory is the one error lib/ code does not return: these print
 * "orbit-trace: out of memory" and abort (lib/ never exits).  Everything
 * else returns -errno.
 */
#ifndef OT_XALLOC_H
#define OT_XALLOC_H

#include <stddef.h>

void *ot_xmalloc(size_t size);
/* Zeroed, with nmemb * size checked for overflow. */
void *ot_xcalloc(size_t nmemb, size_t size);
/* Like reallocarray(3); the old pointer is invalid after the call. */
void *ot_xreallocarray(void *ptr, size_t nmemb, size_t size);
/* ot_xstrdup(NULL) returns NULL. */
char *ot_xstrdup(const char *s);

#endif
