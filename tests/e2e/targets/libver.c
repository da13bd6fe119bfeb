/*
 * Two versions of one function, as glibc has them (realpath@GLIBC_2.2.5,
 * realpath@@GLIBC_2.3): the .symtab spells them vfn@ORBIT_1 and
 * vfn@@ORBIT_2, and programs linked now call the default, ORBIT_2.
 */
int vfn_old(int x);
int vfn_new(int x);

__attribute__((noinline)) int vfn_old(int x)
{
	return x + 1;
}

__attribute__((noinline)) int vfn_new(int x)
{
	return x + 2;
}

__asm__(".symver vfn_old,vfn@ORBIT_1");
__asm__(".symver vfn_new,vfn@@ORBIT_2");
