//! Single-thread throughput of the exact sphere samplers (VMF and Purkayastha) with the release generator
//! (ChaCha12, seeded), for the side-by-side comparison with scipy in `scripts/bench_sphere_vs_scipy.sh`.
//!
//! Usage: `cargo run --release -p manifold-dp --example sphere_throughput [DRAWS]` (default 4 000 000 draws per
//! case; a quarter of that at n = 100). After a warm-up, three rounds go over all cases, each timing DRAWS draws
//! on one thread into a reused buffer around a fixed unit mean (hidden from the optimiser, so that the work that
//! depends on μ is redone at every draw, as when every row has its own mean); the best round of each case
//! counts. Time is the thread's CPU time where the platform has it (Linux), so that other load on a shared
//! machine does not count; wall-clock time otherwise.
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

/// Seconds taken by `draws` draws of `draw` around `mu` into `out`.
#[inline(never)]
fn time_draws(
    draws: usize,
    mu: &[f64],
    out: &mut [f64],
    rng: &mut ChaCha12Rng,
    draw: impl Fn(&[f64], &mut [f64], &mut ChaCha12Rng),
) -> f64 {
    let start = clock();
    for _ in 0..draws {
        draw(black_box(mu), black_box(&mut *out), rng);
    }
    clock() - start
}

enum Sampler {
    Vmf(VmfNoise),
    Purkayastha(PurkayasthaNoise),
}

/// One case: a sampler on S^{n−1} and its fixed unit mean.
struct Case {
    sampler: Sampler,
    kappa: f64,
    mu: Vec<f64>,
}

impl Case {
    /// Seconds taken by `draws` draws.
    fn run(&self, draws: usize, rng: &mut ChaCha12Rng) -> f64 {
        let mut out = vec![0.0; self.mu.len()];
        match &self.sampler {
            Sampler::Vmf(s) => time_draws(draws, &self.mu, &mut out, rng, |mu, out, rng| s.sample_into(mu, out, rng)),
            Sampler::Purkayastha(s) => {
                time_draws(draws, &self.mu, &mut out, rng, |mu, out, rng| s.sample_into(mu, out, rng))
            }
        }
    }
}

fn main() {
    let draws: usize = std::env::args().nth(1).map_or(4_000_000, |s| s.parse().expect("DRAWS must be an integer"));
    let mut cases = Vec::new();
    for dim in [3, 10, 100] {
        // A fixed oblique unit mean (the same as the scipy side's).
        let mut mu: Vec<f64> = (0..dim).map(|i| 1.0 + 0.37 * i as f64).collect();
        let norm = mu.iter().map(|x| x * x).sum::<f64>().sqrt();
        mu.iter_mut().for_each(|x| *x /= norm);
        for kappa in [1.0, 100.0] {
            let (vmf, purkayastha) = (VmfNoise::new(dim, kappa).unwrap(), PurkayasthaNoise::new(dim, kappa).unwrap());
            cases.push(Case { sampler: Sampler::Vmf(vmf), kappa, mu: mu.clone() });
            cases.push(Case { sampler: Sampler::Purkayastha(purkayastha), kappa, mu: mu.clone() });
        }
    }
    let mut rng = seeded_rng_for_experiments(1);
    // Warm-up (caches, clock ramping up): 0.3 s of the first case, then a short pass over all of them.
    let start = clock();
    while clock() - start < 0.3 {
        cases[0].run(100_000, &mut rng);
    }
    for case in &cases {
        case.run(draws / 20, &mut rng);
    }
    // Three rounds over all cases, the best of each counting: a burst of load elsewhere on the machine spoils
    // one round of a case, not all three. One draw at n = 100 costs ~100 Gaussians: fewer draws there.
    let mut best = vec![f64::INFINITY; cases.len()];
    for _ in 0..3 {
        for (case, best) in cases.iter().zip(&mut best) {
            let n = if case.mu.len() >= 100 { draws / 4 } else { draws };
            *best = best.min(case.run(n, &mut rng) / n as f64);
        }
    }
    println!("sampler,dim,kappa,samples_per_sec");
    for (case, best) in cases.iter().zip(best) {
        let name = match case.sampler {
            Sampler::Vmf(_) => "vmf",
            Sampler::Purkayastha(_) => "purkayastha",
        };
        println!("{name},{},{},{:.0}", case.mu.len(), case.kappa, 1.0 / best);
    }
}
