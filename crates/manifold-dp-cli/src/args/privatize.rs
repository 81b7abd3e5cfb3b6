//! `manifold-dp privatize`.

use super::common::{parse_bounds, parse_threads};
use super::{LedgerUse, MechanismArgs};
use crate::io::table::{FileFormat, parse_delimiter};
use clap::Args;

#[derive(Debug, Args)]
pub struct PrivatizeArgs {
    #[command(flatten)]
    pub mechanism: MechanismArgs,
    /// Budget as a protection radius instead of --epsilon: inputs within this distance are
    /// indistinguishable at privacy level --level, i.e. epsilon = level / radius. Angles: 10deg, 0.2rad;
    /// on timeofday also 1h, 30min; on latlon also 2km, 500m.
    #[arg(long, conflicts_with_all = ["epsilon", "concentration"], requires = "level", allow_hyphen_values = true)]
    pub protect: Option<String>,
    /// Privacy level ℓ for --protect: outputs change in probability by at most a factor exp(ℓ) between
    /// inputs --protect apart (a privacy level, not a probability; radius --level is a probability).
    #[arg(long, requires = "protect", allow_hyphen_values = true)]
    pub level: Option<f64>,
    /// Input file (.csv or .parquet; - reads CSV from standard input).
    #[arg(long)]
    pub input: String,
    /// Output file (.csv or .parquet; - writes CSV to standard output). A device or FIFO (/dev/null) is
    /// written directly; a symbolic link is written through to its file. It may not be the input, the ledger
    /// or another output. To a stream, the input is validated before anything is written.
    #[arg(long)]
    pub output: String,
    /// Input file format, when the extension does not say.
    #[arg(long, value_enum)]
    pub input_format: Option<FileFormat>,
    /// Output file format, when the extension does not say.
    #[arg(long, value_enum)]
    pub output_format: Option<FileFormat>,
    /// The field separator of CSV input and output, rejects included (default: a comma; a tab for .tsv): one
    /// character such as ; or |, or tab.
    #[arg(long, value_parser = parse_delimiter)]
    pub delimiter: Option<u8>,
    /// How values are written. so3: quat-wxyz (default), quat-xyzw, matrix (r11…r33 row-major), rotvec
    /// (radians), euler:SEQ (degrees; euler:SEQ:rad for radians; SEQ: xyz, zyx, zxz… lowercase extrinsic,
    /// uppercase intrinsic, as in scipy). circle: rad (default) or deg. timeofday: each field may be decimal
    /// hours (13.5), a clock time (13:30, 13:30:15.5) or a timestamp (2024-05-01T13:30:00Z; the date and
    /// offset pass through, only the time of day is privatized), and is written back in the same form; Parquet
    /// TIME and TIMESTAMP columns keep their type, their local date and their offset (the date never moves
    /// across midnight: that would reveal which side of midnight the original lay on). latlon: deg (longitudes
    /// written in [-180, 180)) or deg360 (in [0, 360), for tables in that convention; either is read).
    /// sphere:N: the N coordinates of a unit vector.
    #[arg(long)]
    pub format: Option<String>,
    /// The input's value columns, in the order of --format (so3 default: w,x,y,z; x,y,z,w; r11,…,r33;
    /// rx,ry,rz; angle1,angle2,angle3. circle: angle. timeofday: time. latlon: lat,lon. sphere:N: x1,…,xN).
    #[arg(long, value_delimiter = ',')]
    pub columns: Option<Vec<String>>,
    /// Write the noisy rotations in another representation (same spellings as --format), under its default
    /// column names.
    #[arg(long)]
    pub output_as: Option<String>,
    /// Round the releases onto a coarser public grid, of step at most this distance (1s or 1min on
    /// timeofday, 10m on latlon, 0.01deg elsewhere): the largest power-of-two step no larger, in the grid's
    /// chart. It is post-processing of the float-safe release, so it costs nothing; the guarantee names the
    /// grid. It cannot be finer than the float-safe grid.
    #[arg(long, value_name = "DISTANCE")]
    pub snap: Option<String>,
    /// Space real only: the public bounds LO,HI (chosen without looking at the data). Every value is clamped
    /// into them, then each row gets Laplace noise for pure epsilon-DP per row.
    #[arg(long, value_parser = parse_bounds, allow_hyphen_values = true)]
    pub bounds: Option<(f64, f64)>,
    /// Space real only: clamp every released value back into --bounds (post-processing: the guarantee is
    /// unchanged). Releases then never leave the bounds (no negative counts), at the price of a bias towards
    /// them for values near the ends.
    #[arg(long)]
    pub clamp_releases: bool,
    /// Set invalid rows aside, unchanged, in this file (.csv or .parquet) instead of stopping at the first.
    #[arg(long, value_name = "REJECTS")]
    pub skip_invalid: Option<String>,
    /// Also write the summary as JSON to this file.
    #[arg(long)]
    pub report: Option<String>,
    /// Overwrite existing output, rejects and report files (replaced atomically, keeping their permissions).
    #[arg(long)]
    pub force: bool,
    /// Seed for a reproducible experiment. NOT FOR RELEASES: whoever knows the seed can remove the noise.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Worker threads, 1 to 256 (default: all cores). The output does not depend on it.
    #[arg(long, value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// No summary on standard error (errors are still reported).
    #[arg(long)]
    pub quiet: bool,
    #[command(flatten)]
    pub ledger: LedgerUse,
}
