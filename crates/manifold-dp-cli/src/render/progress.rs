//! A progress bar on standard error when it is a terminal; silent otherwise (logs and pipes stay clean).

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;

/// Progress of a long run, in rows or bytes.
pub struct Progress(Option<ProgressBar>);

impl Progress {
    /// A bar for `total` units (`"rows"`, `"bytes"`, `"draws"`…), shown only on a terminal.
    pub fn new(total: Option<(u64, &'static str)>) -> Self {
        if !std::io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = match total {
            Some((n, unit)) => {
                let counter = if unit == "bytes" {
                    "{bytes}/{total_bytes}".to_string()
                } else {
                    format!("{{human_pos}}/{{human_len}} {unit}")
                };
                let style = ProgressStyle::with_template(&format!(
                    "{{spinner}} [{{elapsed_precise}}] {{wide_bar}} {counter} ({{eta}} left)"
                ))
                .unwrap_or_else(|_| ProgressStyle::default_bar());
                ProgressBar::new(n).with_style(style)
            }
            None => ProgressBar::new_spinner(),
        };
        Progress(Some(bar))
    }

    /// Moves the bar to `position`.
    pub fn set(&self, position: u64) {
        if let Some(bar) = &self.0 {
            bar.set_position(position);
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}
