<?php
// PHP fibers (php8.2's own stack switch, boost.context's jump_fcontext
// compiled into php): two fibers suspend inside a loop and are resumed in
// turn.  Prints what they summed.  Usage: php8.2 fibers.php N
$n = (int)($argv[1] ?? 100);
$sum = 0;
$fibers = [];
for ($k = 0; $k < 2; $k++) {
    $fibers[$k] = new Fiber(function (int $me) use ($n, &$sum) {
        for ($i = 0; $i < $n; $i++) {
            $x = Fiber::suspend($i);
            $sum += $x + $me;
        }
        return $me;
    });
}
foreach ($fibers as $k => $f)
    $f->start($k);
for ($i = 0; $i < $n; $i++)
    foreach ($fibers as $f)
        if (!$f->isTerminated())
            $f->resume($i);
echo "sum=$sum\n";
