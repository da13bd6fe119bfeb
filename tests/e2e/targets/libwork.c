/* A small shared library of the uselib target's own. */
int work_add(int a, int b);
int work_mul(int a, int b);

static volatile int sink;

__attribute__((noinline)) int work_add(int a, int b)
{
	sink += a;
	return a + b;
}

__attribute__((noinline)) int work_mul(int a, int b)
{
	sink += b;
	return a * b;
}
