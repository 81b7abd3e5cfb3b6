//! Three stages that overlap: a thread reads, the calling thread works (on all cores, through rayon), a thread
//! writes. Bounded channels keep at most a few items between stages, so memory does not grow with the file.

use anyhow::Result;
use std::sync::mpsc;

/// Items waiting between two stages.
const IN_FLIGHT: usize = 2;

/// Runs `read` on a reading thread until it returns `None` or an error, `work` on each item on this thread,
/// and `write` of each result into `sink` on a writing thread; returns the sink. The first error stops every
/// stage: `work`'s (a read error reaches `work` as its item), then `write`'s.
pub fn staged<In, Out, S>(
    mut read: impl FnMut() -> Option<Result<In>> + Send,
    mut work: impl FnMut(In) -> Result<Out>,
    mut sink: S,
    mut write: impl FnMut(&mut S, Out) -> Result<()> + Send,
) -> Result<S>
where
    In: Send,
    Out: Send,
    S: Send,
{
    std::thread::scope(|scope| -> Result<S> {
        let (to_worker, from_reader) = mpsc::sync_channel::<Result<In>>(IN_FLIGHT);
        std::thread::Builder::new().name("manifold-dp-read".into()).spawn_scoped(scope, move || {
            while let Some(item) = read() {
                let stop = item.is_err();
                // A failed send means the worker stopped (on an error of its own); so do we.
                if to_worker.send(item).is_err() || stop {
                    break;
                }
            }
        })?;
        let (to_writer, from_worker) = mpsc::sync_channel::<Out>(IN_FLIGHT);
        let writing = std::thread::Builder::new().name("manifold-dp-write".into()).spawn_scoped(
            scope,
            move || -> Result<S> {
                for item in from_worker {
                    write(&mut sink, item)?;
                }
                Ok(sink)
            },
        )?;
        let worked = (|| -> Result<()> {
            for item in from_reader {
                if to_writer.send(work(item?)?).is_err() {
                    break; // the writer failed; its error is reported below
                }
            }
            Ok(())
        })();
        drop(to_writer);
        let written = writing.join().map_err(|_| anyhow::anyhow!("the writer thread panicked"))?;
        worked?;
        written
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push(v: &mut Vec<i32>, x: i32) -> Result<()> {
        v.push(x);
        Ok(())
    }

    #[test]
    fn every_item_passes_in_order_and_the_first_error_stops_the_run() {
        let mut next = 0..5;
        let out = staged(|| next.next().map(Ok), |i| Ok(i * 10), Vec::new(), push).unwrap();
        assert_eq!(out, vec![0, 10, 20, 30, 40]);
        let mut next = 0..100;
        let failed = staged(
            || next.next().map(Ok),
            |i| if i == 3 { Err(anyhow::anyhow!("bad row {i}")) } else { Ok(i) },
            Vec::new(),
            push,
        );
        assert_eq!(failed.unwrap_err().to_string(), "bad row 3");
        let mut next = 0..3;
        let unreadable = staged(
            || next.next().map(|i| if i == 1 { Err(anyhow::anyhow!("unreadable")) } else { Ok(i) }),
            Ok,
            Vec::new(),
            push,
        );
        assert_eq!(unreadable.unwrap_err().to_string(), "unreadable");
        let mut next = 0..10;
        let full = staged(
            || next.next().map(Ok),
            Ok,
            0,
            |n, _| {
                *n += 1;
                if *n == 2 { Err(anyhow::anyhow!("disk full")) } else { Ok(()) }
            },
        );
        assert_eq!(full.unwrap_err().to_string(), "disk full");
    }
}
