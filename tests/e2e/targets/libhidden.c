/* The library of the hidden target (tests/e2e/container.sh): one function
 * a container's process calls, at a path the host does not have. */
int in_lib(int x);

static volatile int sink;

__attribute__((noinline)) int in_lib(int x)
{
	sink += x;
	return x + 1;
}
