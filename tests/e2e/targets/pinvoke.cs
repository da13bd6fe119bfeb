// Mono calling C through P/Invoke (tests/e2e/inject-mono.sh): nwork() at
// each step, every 10th napply() calling Back() in managed code, which
// makes garbage, throws and catches, and every 1000th step throws through
// napply's C frame to Main.  Prints what it computed.
// Usage: mono pinvoke.exe N (libnwork.so found by LD_LIBRARY_PATH)
using System;
using System.Runtime.InteropServices;

class PInvoke {
	[UnmanagedFunctionPointer(CallingConvention.Cdecl)] delegate long Cb(long x);
	[DllImport("libnwork.so")] static extern long nwork(long x);
	[DllImport("libnwork.so")] static extern long napply(Cb cb, long x);
	static long caught = 0;

	static long Back(long x) {
		var junk = new byte[1024 + (int)(x % 4096)];
		if (x % 1000 == 0)
			throw new ArgumentException("through C");
		try {
			if (x % 3 == 0)
				throw new InvalidOperationException("in C#");
		} catch (InvalidOperationException) {
			caught++;
		}
		return x + junk.Length;
	}

	static int Main(string[] a) {
		long n = a.Length > 0 ? long.Parse(a[0]) : 1000, sum = 0, applied = 0, through = 0;
		Cb cb = Back;
		for (long i = 1; i <= n; i++) {
			sum += nwork(i);
			if (i % 10 == 0) {
				try {
					applied += napply(cb, i);
				} catch (ArgumentException) {
					through++;
				}
			}
		}
		GC.KeepAlive(cb);
		Console.WriteLine("calls {0} sum {1} applied {2} caught {3} through {4}", n, sum, applied, caught, through);
		return 0;
	}
}
