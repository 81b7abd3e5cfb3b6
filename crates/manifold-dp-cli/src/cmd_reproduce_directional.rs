//! `manifold-dp reproduce directional-mean` (being written).

use crate::cli::DirectionalMeanArgs;
use anyhow::Result;

pub fn directional_mean(_args: DirectionalMeanArgs) -> Result<()> {
    anyhow::bail!("not yet written")
}
