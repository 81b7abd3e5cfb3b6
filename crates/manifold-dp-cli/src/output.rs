//! Output that is either complete or absent: data go to a temporary file beside the target, which is
//! renamed over it only when everything was written. An existing target is kept unless `--force`.

use crate::BadInput;
use anyhow::{Context, Result};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

/// Temporary files are created like ordinary files (mode 0666 less the umask), not 0600, so the renamed result
/// has the permissions a user expects.
fn temp_builder() -> tempfile::Builder<'static, 'static> {
    let mut b = tempfile::Builder::new();
    b.prefix(".manifold-dp-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(std::fs::Permissions::from_mode(0o666));
    }
    b
}

/// Where data go: standard output, or a file written atomically.
pub enum Output {
    /// Standard output (`-`).
    Stdout(BufWriter<io::Stdout>),
    /// A temporary file that becomes `target` on [`Output::finish`] and vanishes otherwise.
    File { tmp: BufWriter<NamedTempFile>, target: PathBuf },
}

impl Output {
    /// Opens `path` (`-` for standard output). Refuses an existing file unless `force`.
    pub fn open(path: &str, force: bool) -> Result<Self> {
        if path == "-" {
            return Ok(Output::Stdout(BufWriter::new(io::stdout())));
        }
        let target = PathBuf::from(path);
        if target.exists() && !force {
            return Err(BadInput(format!("{path} already exists; pass --force to overwrite it")).into());
        }
        let dir = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let tmp = temp_builder()
            .tempfile_in(&dir)
            .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
        Ok(Output::File { tmp: BufWriter::new(tmp), target })
    }

    /// Flushes and, for a file, renames the temporary file onto the target.
    pub fn finish(self) -> Result<()> {
        match self {
            Output::Stdout(mut w) => Ok(w.flush()?),
            Output::File { tmp, target } => {
                let tmp = tmp.into_inner().map_err(|e| e.into_error())?;
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
            Output::File { target, .. } => Path::new(target).display().to_string(),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout(w) => w.write(buf),
            Output::File { tmp, .. } => tmp.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(w) => w.flush(),
            Output::File { tmp, .. } => tmp.flush(),
        }
    }
}
