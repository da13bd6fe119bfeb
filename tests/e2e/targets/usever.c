/* Calls the default version of libver's vfn N times (default 100); the
 * library is found through DT_RUNPATH $ORIGIN. */
#include <stdio.h>
#include <stdlib.h>

int vfn(int x);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, i;
	long sum = 0;

	for (i = 0; i < n; i++)
		sum += vfn(i);
	printf("sum=%ld\n", sum);
	return 0;
}
