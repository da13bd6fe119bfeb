/*
 * switches.h - whether a process may run several stacks on one thread, by
 * what its ELF files import and define: a return probe (the kernel keeps
 * one chain of them per thread, not per stack) kills a call that returns
 * on another stack than the last one entered.
 *
 * A process switches stacks when any object it maps or will map calls
 * swapcontext, setcontext or makecontext (imported; defined only in a
 * statically linked program, libc defines them for everyone), calls or
 * defines a fiber library's switch (boost.context's jump_fcontext and
 * ontop_fcontext, libco's coctx_swap, libaco's acosw, marl's
 * marl_fiber_swap), or - coroutines made of an alternate signal stack
 * and jumps - imports sigaltstack and, in the same process, a setjmp and
 * a longjmp.  A switch written in assembly under another name, and a
 * library dlopen'ed after the files were read, are not seen: what this
 * says is "yes" or "none found".  Reads files; prints nothing.
 */
#ifndef OT_SWITCHES_H
#define OT_SWITCHES_H

#include <stddef.h>

/* What one file says, as ot_switch_scan reads it. */
struct ot_switch_file {
	const char *call;	/* a context or fiber switch it calls or defines, or NULL */
	unsigned altstack : 1;	/* imports sigaltstack */
	unsigned setjmp : 1;	/* imports setjmp, _setjmp, sigsetjmp or __sigsetjmp */
	unsigned longjmp : 1;	/* imports longjmp, _longjmp, siglongjmp or __longjmp_chk */
};

/*
 * Read the dynamic and static symbol tables of the ELF file at path into
 * *out (zeroed first); is_program: the process's own executable, where a
 * defined swapcontext counts (a static link).  Returns 0, or -errno when
 * the file cannot be opened (-ENOEXEC: not ELF).
 */
int ot_switch_scan(const char *path, int is_program, struct ot_switch_file *out);

/*
 * The files of one process, paths[0] its program (NULL with none) and
 * names[k] each one's name for people: 1 with why ("swapcontext, in
 * libcoro.so") when it switches stacks, 0 when nothing says so.  A file
 * that cannot be read says nothing.
 */
int ot_switch_process(const char *const *paths, const char *const *names, size_t n,
		      char *why, size_t len);

#endif
