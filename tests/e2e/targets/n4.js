// JSON.stringify N times, making garbage all along: V8's collector runs
// (and walks the stacks) many times.  Prints how many calls it made.
const n = +process.argv[2] || 100000;
let calls = 0, keep = [];
for (let i = 0; i < n; i++) {
	const o = { a: i, b: 'x'.repeat(i % 64), c: [i, i + 1, { d: i, e: [i, 'y'] }] };
	const s = JSON.stringify(o);
	calls++;
	keep.push(s, new Array(16).fill(i));
	if (keep.length > 2000)
		keep = [];
}
console.log('calls', calls);
