// Rust panics unwinding through traced frames: parse() calls check(),
// which panics on one record in 7; main catches each panic
// (catch_unwind) and counts it.  Prints what it counted: a tracer must
// leave the unwinding as it is.  Usage: rpanic N
mod shapes {
    use std::hint::black_box;

    #[inline(never)]
    pub fn check(v: u64) -> u64 {
        if v % 7 == 3 {
            panic!("bad record {}", v);
        }
        black_box(v * 2)
    }

    #[inline(never)]
    pub fn parse(v: u64) -> u64 {
        black_box(check(v)) + 1
    }
}

fn main() {
    let n: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let (mut good, mut bad) = (0u64, 0u64);
    std::panic::set_hook(Box::new(|_| {}));
    for i in 0..n {
        match std::panic::catch_unwind(|| shapes::parse(i)) {
            Ok(_) => good += 1,
            Err(_) => bad += 1,
        }
    }
    println!("{{\"good\": {}, \"bad\": {}}}", good, bad);
}
