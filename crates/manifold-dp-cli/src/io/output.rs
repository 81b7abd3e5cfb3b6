//! Output that is either complete or absent: data go to a temporary file beside the target, which is
//! renamed over it only when everything was written. An existing target is kept unless `--force`.
//!
//! What a path may name, checked when the output is opened (before any row is read or any ledger charge):
//! - `-`: standard output, written as the rows come.
//! - a new file in an existing directory, or (with `--force`) an existing regular file, which is replaced
//!   atomically and keeps its permission bits (so `--force` never loosens them).
//! - a file that is not a regular file (`/dev/null`, a FIFO, a terminal): written directly, like standard
//!   output, with or without `--force`; it is never replaced, and never refused as "already exists".
//! - a symbolic link: written through. The file it points to is what is checked and written (a regular file
//!   is replaced atomically, the link stays); a link to a missing file is refused.
//! - a directory, a name ending in `/`, an empty name, or a file in a missing directory: refused.

use crate::BadInput;
use crate::io::cleanup::{self, Registered};
use anyhow::{Context, Result};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use tempfile::NamedTempFile;

/// Temporary files are named `.manifold-dp-XXXXXX.tmp` (recognisable, and hidden beside the target) and created
/// with mode 0600: readable by their owner only, so no more readable than any input the run could read, whatever
/// they hold while being written. [`Output::finish`] gives the finished file its mode just before the rename.
fn temp_builder() -> tempfile::Builder<'static, 'static> {
    let mut b = tempfile::Builder::new();
    b.prefix(TEMP_PREFIX).suffix(TEMP_SUFFIX);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(std::fs::Permissions::from_mode(0o600));
    }
    b
}

/// How the names of temporary files begin and end.
pub const TEMP_PREFIX: &str = ".manifold-dp-";
/// See [`TEMP_PREFIX`].
pub const TEMP_SUFFIX: &str = ".tmp";

/// Who may read a finished file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readers {
    /// Released data: a new file gets the mode of an ordinary new file (0666 less the umask), a replaced one
    /// (`--force`) keeps its mode.
    AsUsual,
    /// Raw input rows (`--skip-invalid`): the owner only, at most 0600, also when it replaces a file.
    OwnerOnly,
}

/// The process's umask, read once (setting it and putting it back: the only portable way to read it). Read
/// before any other thread of this program creates a file, since it is changed for a moment.
#[cfg(unix)]
#[allow(unsafe_code)] // two libc calls; the crate denies unsafe code everywhere else
fn umask() -> u32 {
    static MASK: OnceLock<u32> = OnceLock::new();
    *MASK.get_or_init(|| {
        // SAFETY: umask only swaps the process's file mode creation mask; no memory is involved.
        let old = unsafe { libc::umask(0o077) };
        // SAFETY: as above, putting back the mask just read.
        unsafe { libc::umask(old) };
        #[allow(clippy::useless_conversion)] // mode_t is u32 on Linux, u16 on macOS
        u32::from(old)
    })
}

/// The mode a finished file gets: `existing` (the replaced file's mode) or an ordinary new file's, limited to
/// 0600 for [`Readers::OwnerOnly`].
#[cfg(unix)]
fn final_permissions(existing: Option<&std::fs::Permissions>, readers: Readers) -> std::fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    let mode = existing.map_or(0o666 & !umask(), |p| p.mode() & 0o7777);
    std::fs::Permissions::from_mode(if readers == Readers::OwnerOnly { mode & 0o600 } else { mode })
}

/// Where data go: standard output, a file that is not a regular file, or a regular file written atomically.
pub enum Output {
    /// Standard output (`-`).
    Stdout(BufWriter<io::Stdout>),
    /// A device, FIFO or other non-regular file, written in place as the data come.
    Direct { file: BufWriter<File>, target: PathBuf },
    /// A temporary file that becomes `target` on [`Output::finish`] and vanishes otherwise.
    File {
        tmp: BufWriter<NamedTempFile>,
        target: PathBuf,
        _registered: Registered,
        writeback: Writeback,
        /// The mode of the file it replaces, if any.
        existing: Option<std::fs::Permissions>,
        readers: Readers,
    },
}

/// Starts the disk writes of a large output while it is still being written, so that the `fsync` in
/// [`Output::finish`] waits only for the last piece. Without it the kernel starts nothing before a few GiB are
/// dirty, and `finish` waited for all of it: 0.25 s of the 1.3 s that `sample` took for 10⁷ rotations (790 MB).
#[derive(Default)]
pub struct Writeback {
    /// Bytes handed to the temporary file so far.
    written: u64,
    /// Where the range whose write-out has not been started yet begins.
    started_to: u64,
}

impl Writeback {
    /// Write-out is started every this many bytes.
    const STEP: u64 = 32 << 20;

    /// Records `n` more bytes written to `tmp`, and once [`Writeback::STEP`] bytes are pending, flushes `tmp`'s
    /// buffer and asks the kernel to start writing them (without waiting for the disk).
    fn record(&mut self, tmp: &mut BufWriter<NamedTempFile>, n: usize) -> io::Result<()> {
        self.written += n as u64;
        if self.written - self.started_to >= Self::STEP {
            tmp.flush()?;
            start_writeback(tmp.get_ref().as_file(), self.started_to, self.written - self.started_to);
            self.started_to = self.written;
        }
        Ok(())
    }
}

/// Asks Linux to start writing `len` bytes of `file` from `offset` to disk (`sync_file_range` with
/// `SYNC_FILE_RANGE_WRITE`: no waiting, no metadata). A hint only: its failure changes nothing, as
/// [`Output::finish`]'s `fsync` still makes everything durable and reports any error.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)] // one libc call; the crate denies unsafe code everywhere else
fn start_writeback(file: &File, offset: u64, len: u64) {
    use std::os::fd::AsRawFd;
    let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else { return };
    // SAFETY: the descriptor is open for the whole call (`file` is borrowed), and sync_file_range reads no
    // memory of this process.
    unsafe {
        libc::sync_file_range(file.as_raw_fd(), offset, len, libc::SYNC_FILE_RANGE_WRITE);
    }
}

/// Elsewhere the final `fsync` does all the work.
#[cfg(not(target_os = "linux"))]
fn start_writeback(_: &File, _: u64, _: u64) {}

/// What a path names, resolved as [`Output::open`] would (see the module documentation).
enum Target {
    Stdout,
    /// An existing file that is not a regular file (through any symbolic links).
    Special(PathBuf),
    /// A regular file, existing (with its permissions) or not; symbolic links resolved.
    Regular {
        path: PathBuf,
        existing: Option<std::fs::Permissions>,
    },
}

fn resolve(path: &str) -> Result<Target, BadInput> {
    if path == "-" {
        return Ok(Target::Stdout);
    }
    if path.is_empty() {
        return Err(BadInput("an output path is empty; give a file name (or - for standard output)".into()));
    }
    if path.ends_with('/') || path.ends_with(std::path::MAIN_SEPARATOR) {
        return Err(BadInput(format!("{path} ends with a separator, so it names a directory; give a file name")));
    }
    let mut target = PathBuf::from(path);
    let link = target.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink());
    if link {
        match target.canonicalize() {
            Ok(resolved) => target = resolved,
            // A link into /proc's descriptors (/dev/stdout when standard output is a pipe or a socket) names
            // no path, but opening it reaches the pipe: written as any special file is.
            Err(_) if std::fs::metadata(&target).is_ok_and(|m| !m.is_file() && !m.is_dir()) => {
                return Ok(Target::Special(target));
            }
            Err(e) => {
                return Err(BadInput(format!(
                    "{path} is a symbolic link to a file that cannot be reached ({e}); refusing to write it"
                )));
            }
        }
    }
    match std::fs::metadata(&target) {
        Ok(m) if m.is_dir() => Err(BadInput(format!("{path} is a directory; give a file name inside it"))),
        Ok(m) if m.is_file() => Ok(Target::Regular { path: target, existing: Some(m.permissions()) }),
        Ok(_) => Ok(Target::Special(target)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let dir = parent(&target);
            match std::fs::metadata(&dir) {
                Ok(m) if m.is_dir() => Ok(Target::Regular { path: target, existing: None }),
                Ok(_) => Err(BadInput(format!("{path}: {} is not a directory", dir.display()))),
                Err(e) => Err(BadInput(format!("{path}: cannot use the directory {}: {e}", dir.display()))),
            }
        }
        Err(e) => Err(BadInput(format!("cannot use {path}: {e}"))),
    }
}

fn parent(target: &Path) -> PathBuf {
    match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

impl Output {
    /// Opens `path` (`-` for standard output) for released data. Refuses an existing regular file unless
    /// `force`, and every path that cannot be written (see the module documentation), before anything is
    /// written.
    pub fn open(path: &str, force: bool) -> Result<Self> {
        Self::open_for(path, force, Readers::AsUsual)
    }

    /// [`Output::open`], for a file that only `readers` may read once finished.
    pub fn open_for(path: &str, force: bool, readers: Readers) -> Result<Self> {
        #[cfg(unix)]
        umask();
        match resolve(path)? {
            Target::Stdout => Ok(Output::Stdout(BufWriter::new(io::stdout()))),
            Target::Special(target) => {
                // No create, no truncate: a device or FIFO is written as it is.
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&target)
                    .map_err(|e| BadInput(format!("cannot write {path}: {e}")))?;
                Ok(Output::Direct { file: BufWriter::new(file), target })
            }
            Target::Regular { path: target, existing } => {
                if existing.is_some() && !force {
                    return Err(BadInput(format!("{path} already exists; pass --force to overwrite it")).into());
                }
                let dir = parent(&target);
                let (tmp, registered) = cleanup::temp_file_in(&temp_builder(), &dir)
                    .map_err(|e| BadInput(format!("cannot create a file in {} (for {path}): {e}", dir.display())))?;
                Ok(Output::File {
                    tmp: BufWriter::new(tmp),
                    target,
                    _registered: registered,
                    writeback: Writeback::default(),
                    existing,
                    readers,
                })
            }
        }
    }

    /// The checks of [`Output::open`] that need no file to be created: what `path` names, and whether it may
    /// be written (an existing regular file only with `force`). For checking every output before any work.
    pub fn check(path: &str, force: bool) -> Result<(), BadInput> {
        match resolve(path)? {
            Target::Regular { existing: Some(_), .. } if !force => {
                Err(BadInput(format!("{path} already exists; pass --force to overwrite it")))
            }
            _ => Ok(()),
        }
    }

    /// Whether the path names a file that is not a regular file (a device, a FIFO), written directly.
    pub fn is_special(path: &str) -> bool {
        path != "-" && std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
    }

    /// Whether what is written appears at once (standard output, a device, a FIFO) rather than at
    /// [`Output::finish`].
    pub fn is_stream(&self) -> bool {
        !matches!(self, Output::File { .. })
    }

    /// Flushes and, for a regular file, renames the temporary file onto the target.
    pub fn finish(self) -> Result<()> {
        match self {
            Output::Stdout(mut w) => Ok(w.flush()?),
            Output::Direct { mut file, target } => {
                file.flush().with_context(|| format!("cannot write {}", target.display()))
            }
            Output::File { tmp, target, existing, readers, .. } => {
                let tmp = tmp.into_inner().map_err(|e| e.into_error())?;
                // The finished file's mode (the replaced file's, or an ordinary new file's; at most 0600 for raw
                // rows), given just before it appears under its name.
                #[cfg(unix)]
                tmp.as_file()
                    .set_permissions(final_permissions(existing.as_ref(), readers))
                    .with_context(|| format!("cannot set the permissions of {}", target.display()))?;
                #[cfg(not(unix))]
                let _ = (existing, readers);
                tmp.as_file().sync_all()?;
                tmp.persist(&target).with_context(|| format!("cannot write {}", target.display()))?;
                Ok(())
            }
        }
    }

    /// The target's path, for messages.
    pub fn describe(&self) -> String {
        match self {
            Output::Stdout(_) => "standard output".into(),
            Output::Direct { target, .. } | Output::File { target, .. } => target.display().to_string(),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout(w) => w.write(buf),
            Output::Direct { file, .. } => file.write(buf),
            Output::File { tmp, writeback, .. } => {
                let n = tmp.write(buf)?;
                writeback.record(tmp, n)?;
                Ok(n)
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(w) => w.flush(),
            Output::Direct { file, .. } => file.flush(),
            Output::File { tmp, .. } => tmp.flush(),
        }
    }
}

/// The identity of a file for telling whether two paths name the same one.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Identity {
    /// An existing file: device and inode (through symbolic links).
    Inode(u64, u64),
    /// A file yet to be created: its canonical directory and its name.
    New(PathBuf),
}

#[cfg(unix)]
fn inode(m: &std::fs::Metadata) -> Identity {
    use std::os::unix::fs::MetadataExt;
    Identity::Inode(m.dev(), m.ino())
}

#[cfg(not(unix))]
fn inode(_: &std::fs::Metadata) -> Identity {
    Identity::New(PathBuf::new())
}

/// `None` when the path cannot be resolved (the output's own checks report that).
fn identity(path: &str) -> Option<Identity> {
    if path == "-" {
        // Standard output's own file: a terminal, a pipe, or a file it was redirected to.
        return std::fs::metadata("/dev/stdout").ok().map(|m| inode(&m));
    }
    if let Ok(m) = std::fs::metadata(path) {
        return Some(inode(&m));
    }
    let p = Path::new(path);
    let target = match std::fs::read_link(p) {
        Ok(t) if t.is_relative() => parent(p).join(t),
        Ok(t) => t,
        Err(_) => p.to_path_buf(),
    };
    let dir = parent(&target).canonicalize().ok()?;
    Some(Identity::New(dir.join(target.file_name()?)))
}

/// The files SQLite keeps beside the ledger `db`: its `-journal`, `-wal` and `-shm`, beside the path as given and
/// beside the file it resolves to (through symbolic links).
fn ledger_companions(db: &str) -> Vec<String> {
    let mut bases = vec![db.to_string()];
    if let Ok(real) = std::fs::canonicalize(db)
        && let Some(real) = real.to_str()
        && real != db
    {
        bases.push(real.to_string());
    }
    bases.iter().flat_map(|b| ["-journal", "-wal", "-shm"].map(|s| format!("{b}{s}"))).collect()
}

/// Refuses outputs that name the same file as each other, the input, the ledger or the ledger's SQLite
/// companion files (`-journal`, `-wal`, `-shm`) (compared by device and
/// inode where the file exists, by canonical path where it does not, so `./pub.csv`, `pub.csv` and a link to
/// it are one file), and more than one output on standard output. `outputs` are (flag, path); `/dev/null`
/// may be named by several outputs, since nothing written there can be mixed up.
pub fn check_distinct(input: Option<&str>, outputs: &[(&str, &str)], ledger: Option<&str>) -> Result<(), BadInput> {
    let stdout: Vec<&str> = outputs.iter().filter(|(_, p)| *p == "-").map(|(f, _)| *f).collect();
    if stdout.len() > 1 {
        return Err(BadInput(format!(
            "{} all name standard output (-); at most one output may go there",
            stdout.join(" and ")
        )));
    }
    let null = std::fs::metadata("/dev/null").ok().map(|m| inode(&m));
    let ids: Vec<Option<Identity>> = outputs.iter().map(|(_, p)| identity(p)).collect();
    for (i, (flag, path)) in outputs.iter().enumerate() {
        let Some(id) = &ids[i] else { continue };
        if let Some(input) = input.filter(|&p| p != "-")
            && identity(input).as_ref() == Some(id)
        {
            return Err(BadInput(format!("{flag} {path} is the input file {input}; choose another name")));
        }
        if let Some(db) = ledger {
            if identity(db).as_ref() == Some(id) {
                return Err(BadInput(format!("{flag} {path} is the privacy ledger {db}; choose another name")));
            }
            // SQLite keeps a ledger's uncommitted changes beside it, under these names (its rollback journal, or
            // its write-ahead log and shared-memory index): a file written there would be taken for one, and
            // rolled back into the ledger or deleted.
            if let Some(companion) = ledger_companions(db).iter().find(|c| identity(c).as_ref() == Some(id)) {
                return Err(BadInput(format!(
                    "{flag} {path} is {companion}, where SQLite keeps the privacy ledger {db}'s uncommitted changes; \
                     choose another name"
                )));
            }
        }
        for (j, (other_flag, other)) in outputs.iter().enumerate().take(i) {
            if ids[j].as_ref() == Some(id) && null.as_ref() != Some(id) {
                return Err(BadInput(format!(
                    "{other_flag} {other} and {flag} {path} name the same file; give each output its own"
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_outputs_written_in_pieces_arrive_whole() {
        // Past several write-out steps, in pieces of an odd size that straddle the steps' boundaries.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.bin");
        let mut out = Output::open(path.to_str().unwrap(), false).unwrap();
        let piece: Vec<u8> = (0..1_000_003u64).map(|i| (i.wrapping_mul(2_654_435_761) >> 7) as u8).collect();
        let total = 3 * Writeback::STEP as usize + 12_345;
        let mut written = 0;
        while written < total {
            let n = piece.len().min(total - written);
            out.write_all(&piece[..n]).unwrap();
            written += n;
        }
        let Output::File { writeback, .. } = &out else { panic!("a regular file") };
        // Write-out was started for all but the last step's worth.
        assert_eq!(writeback.written, total as u64);
        assert!(writeback.started_to > total as u64 - Writeback::STEP, "{}", writeback.started_to);
        out.finish().unwrap();
        let back = std::fs::read(&path).unwrap();
        assert_eq!(back.len(), total);
        assert!(back.chunks(piece.len()).all(|c| c == &piece[..c.len()]));
    }
}
