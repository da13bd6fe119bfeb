/* A plugin uselib loads with dlopen only when asked: not mapped at start. */
int plug_run(int v);

static volatile int sink;

__attribute__((noinline)) int plug_run(int v)
{
	sink += v;
	return v * 3;
}
