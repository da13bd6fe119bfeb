// The stress tree in Rust, its functions in a module: outer -> 2 x middle
// -> 3 x inner.  Prints the counts it made.
mod orbit_stress {
    use std::hint::black_box;

    #[inline(never)]
    pub fn inner(seed: u64) -> u64 {
        let mut x = seed;
        for _ in 0..64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        }
        black_box(x)
    }

    #[inline(never)]
    pub fn middle(seed: u64) -> u64 {
        let mut s = 0;
        for i in 0..3 {
            s ^= inner(seed + i);
        }
        black_box(s)
    }

    #[inline(never)]
    pub fn outer(seed: u64) -> u64 {
        black_box(middle(seed) ^ middle(seed + 7))
    }
}

fn main() {
    let n: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let mut s = 0;
    for k in 0..n {
        s ^= orbit_stress::outer(k);
    }
    std::hint::black_box(s);
    println!("{{\"outer\": {}, \"middle\": {}, \"inner\": {}}}", n, 2 * n, 6 * n);
}
