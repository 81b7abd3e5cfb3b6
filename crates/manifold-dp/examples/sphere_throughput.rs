//! Single-thread throughput of the exact sphere samplers (VMF and Purkayastha) with the release generator
//! (ChaCha12, seeded), for the side-by-side comparison with scipy in `scripts/bench_sphere_vs_scipy.sh`.
//!
//! Usage: `cargo run --release -p manifold-dp --example sphere_throughput [DRAWS]` (default 4 000 000 draws per
//! case; a quarter of that at n = 100). Each case is timed three times on one thread, drawing into a reused
//! buffer around a fixed unit mean (hidden from the optimiser, so that the work that depends on μ is redone at
//! every draw, as when every row has its own mean), and the best run counts. Time is the thread's CPU time where
//! the platform has it (Linux), so that other load on a shared machine does not count; wall-clock time
//! otherwise.
//! Output: CSV `sampler,dim,kappa,samples_per_sec`, one line per case.

use manifold_dp::sample::purkayastha::PurkayasthaNoise;
use manifold_dp::sample::rng::seeded_rng_for_experiments;
use manifold_dp::sample::vmf::VmfNoise;
use rand::rngs::ChaCha12Rng;
use std::hint::black_box;

/// Seconds of CPU time used by the calling thread (Linux: `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`).
#[cfg(target_os = "linux")]
fn clock() -> f64 {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    unsafe extern "C" {
        fn clock_gettime(clock_id: i32, tp: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut ts = Timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec (64-bit Linux layout) for the duration of the call.
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime failed");
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Seconds of wall-clock time since the first call.
#[cfg(not(target_os = "linux"))]
fn clock() -> f64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed().as_secs_f64()
}

/// Best-of-3 rate (draws per second) of `draw` around `mu`, writing into a reused buffer.
#[inline(never)]
fn rate(draws: usize, mu: &[f64], draw: impl Fn(&[f64], &mut [f64], &mut ChaCha12Rng)) -> f64 {
    let mut rng = seeded_rng_for_experiments(1);
    let mut out = vec![0.0; mu.len()];
    for _ in 0..draws / 20 {
        draw(mu, &mut out, &mut rng); // warm-up
    }
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let start = clock();
        for _ in 0..draws {
            draw(black_box(mu), black_box(&mut out), &mut rng);
        }
        best = best.min(clock() - start);
    }
    draws as f64 / best
}

fn main() {
    let draws: usize = std::env::args().nth(1).map_or(4_000_000, |s| s.parse().expect("DRAWS must be an integer"));
    println!("sampler,dim,kappa,samples_per_sec");
    for dim in [3, 10, 100] {
        // A fixed oblique unit mean (the same as the scipy side's).
        let mut mu: Vec<f64> = (0..dim).map(|i| 1.0 + 0.37 * i as f64).collect();
        let norm = mu.iter().map(|x| x * x).sum::<f64>().sqrt();
        mu.iter_mut().for_each(|x| *x /= norm);
        // One draw at n = 100 costs ~100 Gaussians: fewer draws keep the run short.
        let n = if dim >= 100 { draws / 4 } else { draws };
        for kappa in [1.0, 100.0] {
            let vmf = VmfNoise::new(dim, kappa).unwrap();
            let r = rate(n, &mu, |mu, out, rng| vmf.sample_into(mu, out, rng));
            println!("vmf,{dim},{kappa},{r:.0}");
            let purkayastha = PurkayasthaNoise::new(dim, kappa).unwrap();
            let r = rate(n, &mu, |mu, out, rng| purkayastha.sample_into(mu, out, rng));
            println!("purkayastha,{dim},{kappa},{r:.0}");
        }
    }
}
