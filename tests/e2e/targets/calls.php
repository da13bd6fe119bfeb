<?php
// Known PHP calls for --lang php (tests/e2e/usdt-lang.sh): a recursive
// function, nested calls, a recursive method, several functions.  Each
// counts its own calls by depth (the top-level script is depth 0, as
// orbit-trace's php:main) and the script prints them as JSON at the end:
// {"fib": {"1": 1, "2": 2, ...}, ...}.  Usage: php calls.php [N]
$c = [];
$d = 0;

function fib($n) {
	global $c, $d;
	$d++;
	$c['fib'][$d] = ($c['fib'][$d] ?? 0) + 1;
	$r = $n < 2 ? $n : fib($n - 1) + fib($n - 2);
	$d--;
	return $r;
}

function leaf($x) {
	global $c, $d;
	$d++;
	$c['leaf'][$d] = ($c['leaf'][$d] ?? 0) + 1;
	$d--;
	return $x + 1;
}

function middle($x) {
	global $c, $d;
	$d++;
	$c['middle'][$d] = ($c['middle'][$d] ?? 0) + 1;
	$r = leaf($x) + leaf($x + 1);
	$d--;
	return $r;
}

function outer($n) {
	global $c, $d;
	$d++;
	$c['outer'][$d] = ($c['outer'][$d] ?? 0) + 1;
	$s = 0;
	for ($i = 0; $i < $n; $i++)
		$s += middle($i);
	$d--;
	return $s;
}

class Tree {
	public static function walk($depth) {
		global $c, $d;
		$d++;
		$c['walk'][$d] = ($c['walk'][$d] ?? 0) + 1;
		$n = 1;
		if ($depth > 0)
			$n += Tree::walk($depth - 1) + Tree::walk($depth - 1);
		$d--;
		return $n;
	}
}

$n = (int)($argv[1] ?? 7);
fib(12);
outer($n);
for ($i = 0; $i < 3; $i++)
	Tree::walk(4);
echo json_encode($c), "\n";
