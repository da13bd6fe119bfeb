/*
 * inject_remove.h - taking back from the process what --backend inject
 * put there, once its entries are restored and its threads held: every
 * thread stepped out of our code, every hijacked return address put back
 * on its stack, our regions unmapped - or left, saying why, where a thread
 * may still need them.  For lib/inject/inject.c (ot_inject_remove) and
 * lib/inject/inject_recover.c (what a killed orbit-trace left).
 */
#ifndef OT_INJECT_REMOVE_H
#define OT_INJECT_REMOVE_H

struct ot_inject;

/* As above; in->info says what was put back and what was left. */
void inject_take_back(struct ot_inject *in);

#endif
