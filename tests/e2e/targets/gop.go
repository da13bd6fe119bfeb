// gop: a Go program for tests/e2e/go.sh, which prints its own counts.
//
// W goroutines each make N calls of outer -> 2 x middle -> 2 x leaf, and
// every 50th middle a recursion of deep 200 levels down whose frames make
// the goroutine's stack grow (runtime.morestack copies it, twice or more);
// middle yields now and then (runtime.Gosched), so goroutines move between
// threads.  Each goroutine then calls guarded P times, whose callee boom
// panics and guarded recovers (boom's call never returns), and greet with a
// string.  The program prints what it did: every count, the depth each
// function runs at from its goroutine's first traced call, and a checksum.
//
//	gop N [W]          the workload, then exit 0
//	gop -wait N [W]    print "ready", wait for a line on stdin, then the same
//	gop -deadlock N    the workload on one goroutine, then block forever: Go's
//	                   runtime says "fatal error: all goroutines are asleep -
//	                   deadlock!" and exits 2
package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
)

const (
	deepEvery = 50  // a recursion every deepEvery calls of middle
	deepLevel = 200 // levels of each recursion
	panics    = 7   // calls of guarded per goroutine
)

//go:noinline
func leaf(x int) int {
	return x*3 + 1
}

// Each level's frame holds 256 bytes: 200 levels outgrow the goroutine's
// first stack (8 KB), so Go copies it to a larger one mid-recursion.
//
//go:noinline
func deep(n int) int {
	var pad [256]byte
	pad[n%256] = byte(n)
	if n == 0 {
		return int(pad[0])
	}
	return deep(n-1) + int(pad[n%256]&1)
}

//go:noinline
func middle(x int) int {
	s := leaf(x)
	if x%deepEvery == 0 {
		s += deep(deepLevel)
	}
	if x%7 == 0 {
		runtime.Gosched() // another goroutine may run here, and this one elsewhere
	}
	return s + leaf(x+1)
}

//go:noinline
func outer(x int) int {
	return middle(2*x) + middle(2*x+1)
}

//go:noinline
func boom(n int) int {
	if n >= 0 {
		panic("boom " + strconv.Itoa(n))
	}
	return n
}

//go:noinline
func guarded(n int) (r int) {
	defer func() {
		if recover() != nil {
			r = -n
		}
	}()
	return boom(n)
}

//go:noinline
func greet(name string, n int) int {
	return len(name) + n
}

// A method, and a generic function made for two types: Go's names
// "main.(*tally).add" and, in .gopclntab, "main.larger[...]" for both.
type tally struct{ n int }

//go:noinline
func (t *tally) add(k int) { t.n += k }

//go:noinline
func larger[T int | string](a, b T) T {
	if a > b {
		return a
	}
	return b
}

// The calls one goroutine makes, and its checksum.
func work(g, n int) (sum int, deeps int) {
	for i := 0; i < n; i++ {
		sum += outer(g*n + i)
	}
	for x := 0; x < 2*n; x++ {
		if (2*(g*n)+x)%deepEvery == 0 {
			deeps++
		}
	}
	for p := 0; p < panics; p++ {
		sum += guarded(p)
	}
	sum += greet("gopher", g)
	t := &tally{}
	t.add(g)
	sum += t.n + larger(g, 3) + len(larger("go", "pher"))
	return sum, deeps
}

func main() {
	args := os.Args[1:]
	wait, deadlock := false, false
	for len(args) > 0 && (args[0] == "-wait" || args[0] == "-deadlock") {
		wait = wait || args[0] == "-wait"
		deadlock = deadlock || args[0] == "-deadlock"
		args = args[1:]
	}
	if len(args) < 1 {
		fmt.Fprintln(os.Stderr, "usage: gop [-wait] [-deadlock] N [W]")
		os.Exit(64)
	}
	n, _ := strconv.Atoi(args[0])
	w := 8
	if len(args) > 1 {
		w, _ = strconv.Atoi(args[1])
	}
	if deadlock {
		w = 1
	}
	if wait {
		fmt.Println("ready")
		bufio.NewReader(os.Stdin).ReadString('\n')
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	total, deeps := 0, 0
	for g := 0; g < w; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			s, d := work(g, n)
			mu.Lock()
			total += s
			deeps += d
			mu.Unlock()
		}(g)
	}
	wg.Wait()
	// What a tracer should count: function=calls@depth (depth from the
	// goroutine's outermost traced call), and boom's calls, none of which
	// returns.
	fmt.Printf("main.outer=%d@0\n", w*n)
	fmt.Printf("main.middle=%d@1\n", 2*w*n)
	fmt.Printf("main.leaf=%d@2\n", 4*w*n)
	fmt.Printf("main.deep=%d\n", deeps*(deepLevel+1))
	fmt.Printf("main.guarded=%d@0\n", w*panics)
	fmt.Printf("main.greet=%d@0\n", w)
	fmt.Printf("main.(*tally).add=%d@0\n", w)
	fmt.Printf("unreturned main.boom=%d\n", w*panics)
	fmt.Printf("checksum %d\n", total)
	if deadlock {
		select {}
	}
}
