//! The ledger file: creation, the checks on opening, and the transactions that record releases and budgets.

use crate::accounts::{self, Account, REPORT_DELTA, ReleaseKind, Unaccounted};
use crate::error::{LedgerError, Overdraft};
use crate::report::{BudgetChange, BudgetEntry, DatasetExport, Export, NotionSpent, Receipt, Release, Spent};
use manifold_dp::privacy::{Guarantee, Notion};
use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension, Transaction, TransactionBehavior, params};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `PRAGMA application_id` of a ledger: the bytes `MDPL`. SQLite stores it in the file header, so a ledger is
/// told apart from any other SQLite file before a single table is read.
pub const APPLICATION_ID: i64 = 0x4D44_504C;

/// `PRAGMA user_version` of the schema this library writes and reads.
pub const SCHEMA_VERSION: i64 = 1;

/// How long a transaction waits for another writer's lock before giving up.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The schema. `releases` is append-only (triggers refuse UPDATE and DELETE); `budget_log` keeps every budget
/// ever set; times come from SQLite's clock in UTC.
const SCHEMA: &str = "
CREATE TABLE ledger_info (
    key TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
) STRICT;
CREATE TABLE budgets (
    dataset TEXT NOT NULL CHECK (length(dataset) > 0),
    account TEXT NOT NULL,
    budget TEXT NOT NULL CHECK (json_valid(budget)),
    set_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (dataset, account)
) STRICT;
CREATE TABLE budget_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    dataset TEXT NOT NULL,
    account TEXT NOT NULL,
    budget TEXT NOT NULL CHECK (json_valid(budget))
) STRICT;
CREATE TABLE releases (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    dataset TEXT NOT NULL CHECK (length(dataset) > 0),
    mechanism TEXT NOT NULL CHECK (length(mechanism) > 0),
    guarantees TEXT NOT NULL CHECK (json_valid(guarantees)),
    request_id TEXT UNIQUE
) STRICT;
CREATE INDEX releases_by_dataset ON releases (dataset, id);
CREATE TRIGGER releases_no_update BEFORE UPDATE ON releases
    BEGIN SELECT RAISE(ABORT, 'the privacy ledger is append-only'); END;
CREATE TRIGGER releases_no_delete BEFORE DELETE ON releases
    BEGIN SELECT RAISE(ABORT, 'the privacy ledger is append-only'); END;
CREATE TRIGGER budget_log_no_update BEFORE UPDATE ON budget_log
    BEGIN SELECT RAISE(ABORT, 'the privacy ledger is append-only'); END;
CREATE TRIGGER budget_log_no_delete BEFORE DELETE ON budget_log
    BEGIN SELECT RAISE(ABORT, 'the privacy ledger is append-only'); END;
";

const TABLES: [&str; 4] = ["budget_log", "budgets", "ledger_info", "releases"];

const NOW: &str = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

/// What [`Ledger::check_new`] and [`Ledger::record_new`] demand of a release besides fitting its budgets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Admission {
    /// Accept a data set that has no budget at all (recorded, but limited by nothing). Off by default: a
    /// mistyped, copied or defaulted label would otherwise escape the budget of the data it stands for.
    pub allow_unbudgeted: bool,
}

/// Which file a path names: its device and inode (Unix), so that a handle can tell that the file at its path
/// was moved, replaced or deleted since it was opened. On other systems, the canonical path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileId(FileIdInner);

#[derive(Debug, Clone, PartialEq, Eq)]
enum FileIdInner {
    #[cfg(unix)]
    Inode { dev: u64, ino: u64 },
    #[cfg(not(unix))]
    Canonical(PathBuf),
}

impl FileId {
    /// The file at `path` now.
    pub fn of(path: &Path) -> std::io::Result<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let m = std::fs::metadata(path)?;
            Ok(FileId(FileIdInner::Inode { dev: m.dev(), ino: m.ino() }))
        }
        #[cfg(not(unix))]
        {
            Ok(FileId(FileIdInner::Canonical(std::fs::canonicalize(path)?)))
        }
    }
}

/// A privacy ledger: an SQLite file recording each release of each data set and its budgets.
///
/// Every write is one `BEGIN IMMEDIATE` transaction (so writers queue, each seeing the releases of those
/// before it), in SQLite's rollback-journal mode with `synchronous = FULL` (a committed release survives a
/// crash or power loss; an interrupted one leaves a journal that the next opener rolls back). A `Ledger` is
/// one connection: use one per thread.
#[derive(Debug)]
pub struct Ledger {
    conn: Connection,
    path: PathBuf,
    id: FileId,
}

/// Checks a data set or mechanism label: not blank, no control characters, at most 1000 bytes.
fn check_label(value: &str, what: &str) -> Result<(), LedgerError> {
    if value.trim().is_empty() {
        return Err(LedgerError::Invalid(format!("the {what} label is empty")));
    }
    if value.len() > 1000 || value.chars().any(char::is_control) {
        return Err(LedgerError::Invalid(format!(
            "the {what} label {value:?} is too long or has control characters (at most 1000 bytes, printable)"
        )));
    }
    Ok(())
}

fn check_guarantees(guarantees: &[Guarantee]) -> Result<(), LedgerError> {
    if guarantees.is_empty() {
        return Err(LedgerError::Invalid("a release needs at least one guarantee".into()));
    }
    for g in guarantees {
        g.validate().map_err(|e| LedgerError::Invalid(format!("{g}: {e}")))?;
    }
    Ok(())
}

/// Parses JSON into a type that deserialises only from `'static` data (a [`Guarantee`] holds its unit as a
/// `&'static str`): through an owned [`serde_json::Value`], which deserialises with any lifetime.
pub(crate) fn parse_json<T: serde::Deserialize<'static>>(json: &str) -> Result<T, serde_json::Error> {
    let value: serde_json::Value = serde_json::from_str(json)?;
    T::deserialize(value)
}

fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).expect("guarantees serialise to JSON")
}

impl Ledger {
    /// Creates a new, empty ledger at `path`. Refuses a path that exists. The file is built under a temporary
    /// name beside it and moved into place without replacing anything, so `path` is either absent or a
    /// complete ledger, even if two processes create it at once.
    pub fn create(path: impl AsRef<Path>) -> Result<Ledger, LedgerError> {
        let path = path.as_ref().to_path_buf();
        if path.symlink_metadata().is_ok() {
            return Err(LedgerError::AlreadyExists { path });
        }
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let io = |source| LedgerError::Io { path: path.clone(), source };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".manifold-dp-ledger-").suffix(".tmp");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let tmp = builder.tempfile_in(&dir).map_err(io)?;
        {
            let sql = |source| LedgerError::Sqlite { path: path.clone(), source: Box::new(source) };
            let conn = Connection::open_with_flags(tmp.path(), OpenFlags::SQLITE_OPEN_READ_WRITE).map_err(sql)?;
            conn.pragma_update(None, "journal_mode", "DELETE").map_err(sql)?;
            conn.pragma_update(None, "synchronous", "FULL").map_err(sql)?;
            let init = format!(
                "BEGIN IMMEDIATE;
                 PRAGMA application_id = {APPLICATION_ID};
                 PRAGMA user_version = {SCHEMA_VERSION};
                 {SCHEMA}
                 INSERT INTO ledger_info (key, value) VALUES ('created_at', {NOW});
                 INSERT INTO ledger_info (key, value) VALUES ('created_by', 'manifold-dp-ledger {}');
                 COMMIT;",
                env!("CARGO_PKG_VERSION")
            );
            conn.execute_batch(&init).map_err(sql)?;
            conn.close().map_err(|(_, e)| sql(e))?;
        }
        tmp.as_file().sync_all().map_err(io)?;
        match tmp.persist_noclobber(&path) {
            Ok(_) => {}
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(LedgerError::AlreadyExists { path });
            }
            Err(e) => return Err(io(e.error)),
        }
        // Make the new directory entry durable too (best effort: not every platform can sync a directory).
        if let Ok(d) = std::fs::File::open(&dir) {
            let _ = d.sync_all();
        }
        Ledger::open(path)
    }

    /// Opens an existing ledger. Refuses a missing file, and reports (without writing to it) a file that is
    /// not an SQLite database, an SQLite database of another application, a ledger of a newer schema, and a
    /// ledger that fails SQLite's `quick_check`. A journal left by a writer that crashed is rolled back here.
    pub fn open(path: impl AsRef<Path>) -> Result<Ledger, LedgerError> {
        let path = path.as_ref().to_path_buf();
        match std::fs::metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(LedgerError::NotFound { path }),
            Err(source) => return Err(LedgerError::Io { path, source }),
            Ok(m) if !m.is_file() => {
                return Err(LedgerError::NotALedger { path, reason: "it is not a regular file".into() });
            }
            Ok(_) => {}
        }
        // No SQLITE_OPEN_CREATE: SQLite must never make a file here.
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = match Connection::open_with_flags(&path, flags) {
            Ok(c) => c,
            Err(e) => return Err(classify(&path, e)),
        };
        let id = FileId::of(&path).map_err(|source| LedgerError::Io { path: path.clone(), source })?;
        let ledger = Ledger { conn, path, id };
        ledger.conn.busy_timeout(DEFAULT_BUSY_TIMEOUT).map_err(|e| ledger.sql(e))?;
        // Per-connection settings; none of them writes to the file.
        ledger.conn.pragma_update(None, "trusted_schema", false).map_err(|e| ledger.sql(e))?;
        ledger.conn.pragma_update(None, "synchronous", "FULL").map_err(|e| ledger.sql(e))?;
        ledger.verify()?;
        Ok(ledger)
    }

    /// Opens the ledger at `path` only if it is still the file `expected` names ([`Ledger::file_id`] of an
    /// earlier handle): refused ([`LedgerError::Replaced`]) when the file there was moved, replaced or deleted
    /// since, so that a long-lived handle never charges another file.
    pub fn open_same(path: impl AsRef<Path>, expected: &FileId) -> Result<Ledger, LedgerError> {
        let path = path.as_ref();
        let ledger = match Ledger::open(path) {
            Err(LedgerError::NotFound { path }) => return Err(LedgerError::Replaced { path }),
            other => other?,
        };
        if &ledger.id != expected {
            return Err(LedgerError::Replaced { path: path.to_path_buf() });
        }
        Ok(ledger)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Which file was opened (its device and inode).
    pub fn file_id(&self) -> &FileId {
        &self.id
    }

    /// Sets how long a transaction waits for another process's lock (default [`DEFAULT_BUSY_TIMEOUT`]).
    pub fn set_busy_timeout(&self, timeout: Duration) -> Result<(), LedgerError> {
        self.conn.busy_timeout(timeout).map_err(|e| self.sql(e))
    }

    fn sql(&self, e: rusqlite::Error) -> LedgerError {
        classify(&self.path, e)
    }

    fn corrupt(&self, detail: String) -> LedgerError {
        LedgerError::Corrupt { path: self.path.clone(), detail }
    }

    /// The checks of [`Ledger::open`]; reads only.
    fn verify(&self) -> Result<(), LedgerError> {
        let pragma = |name: &str| -> Result<i64, LedgerError> {
            self.conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get(0)).map_err(|e| self.sql(e))
        };
        let app_id = pragma("application_id")?;
        let version = pragma("user_version")?;
        let tables: Vec<String> = {
            let mut stmt = self
                .conn
                .prepare(
                    "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
                )
                .map_err(|e| self.sql(e))?;
            stmt.query_map([], |r| r.get(0)).and_then(|rows| rows.collect()).map_err(|e| self.sql(e))?
        };
        if app_id != APPLICATION_ID {
            let what = if tables.is_empty() {
                "an empty database; create a ledger with `init`".to_string()
            } else {
                let shown: Vec<&str> = tables.iter().take(6).map(String::as_str).collect();
                let more = if tables.len() > 6 { ", …" } else { "" };
                format!("application id {app_id:#x}, tables {}{more}", shown.join(", "))
            };
            return Err(LedgerError::Foreign { path: self.path.clone(), what });
        }
        if version > SCHEMA_VERSION {
            return Err(LedgerError::NewerSchema {
                path: self.path.clone(),
                found: version,
                supported: SCHEMA_VERSION,
            });
        }
        if version < 1 {
            return Err(self.corrupt(format!("schema version {version}: the ledger's creation never finished")));
        }
        let problems: Vec<String> = {
            let mut stmt = self.conn.prepare("PRAGMA quick_check(5)").map_err(|e| self.sql(e))?;
            stmt.query_map([], |r| r.get(0)).and_then(|rows| rows.collect()).map_err(|e| self.sql(e))?
        };
        if problems != ["ok"] {
            return Err(self.corrupt(format!("SQLite's integrity check failed: {}", problems.join("; "))));
        }
        if let Some(missing) = TABLES.iter().find(|t| !tables.iter().any(|have| have == *t)) {
            return Err(self.corrupt(format!("table {missing} is missing")));
        }
        Ok(())
    }

    /// SQLite's full `PRAGMA integrity_check` (slower than the `quick_check` made on opening): `Ok` when the
    /// file is sound, else [`LedgerError::Corrupt`] with what it found.
    pub fn integrity_check(&self) -> Result<(), LedgerError> {
        let problems: Vec<String> = {
            let mut stmt = self.conn.prepare("PRAGMA integrity_check(10)").map_err(|e| self.sql(e))?;
            stmt.query_map([], |r| r.get(0)).and_then(|rows| rows.collect()).map_err(|e| self.sql(e))?
        };
        if problems == ["ok"] {
            Ok(())
        } else {
            Err(self.corrupt(format!("SQLite's integrity check failed: {}", problems.join("; "))))
        }
    }

    fn begin(&self, behavior: TransactionBehavior) -> Result<Transaction<'_>, LedgerError> {
        Transaction::new_unchecked(&self.conn, behavior).map_err(|e| self.sql(e))
    }

    /// Sets (or changes) the budget of `dataset` in the budget's account: its notion, or for metric DP its
    /// metric and unit. See [`Ledger::set_budgets`].
    pub fn set_budget(&self, dataset: &str, budget: Guarantee) -> Result<Spent, LedgerError> {
        self.set_budgets(dataset, &[budget])
    }

    /// Sets (or changes) several budgets of `dataset` at once, all or none, each in its guarantee's account
    /// ([`Account::of`]). See [`Ledger::set_budgets_in`].
    pub fn set_budgets(&self, dataset: &str, budgets: &[Guarantee]) -> Result<Spent, LedgerError> {
        let pairs: Vec<(Account, Guarantee)> = budgets.iter().map(|b| (Account::of(b), *b)).collect();
        self.set_budgets_in(dataset, &pairs)
    }

    /// Sets (or changes) several budgets of `dataset` at once, all or none: each in its account (a notion, a
    /// metric and unit, or [`Account::Overall`], the optional overall cap, whose budget is pure DP). A metric
    /// budget with no additive allowance gets [`crate::DEFAULT_ADDITIVE_ALLOWANCE`]. A budget may be raised or
    /// lowered, but never below what the data set has already spent, and not in an account some recorded release
    /// cannot be expressed in ([`LedgerError::BelowSpent`], [`LedgerError::BudgetUnaccountable`]). Returns the
    /// spending under the new budgets.
    pub fn set_budgets_in(&self, dataset: &str, budgets: &[(Account, Guarantee)]) -> Result<Spent, LedgerError> {
        check_label(dataset, "data set")?;
        if budgets.is_empty() {
            return Err(LedgerError::Invalid("no budget given".into()));
        }
        let budgets: Vec<(Account, Guarantee)> =
            budgets.iter().map(|(a, b)| (*a, accounts::with_allowance(*b))).collect();
        for (i, (account, b)) in budgets.iter().enumerate() {
            b.validate().map_err(|e| LedgerError::Invalid(format!("budget {b}: {e}")))?;
            if let Guarantee::ApproxDp { delta, .. } = b
                && *delta >= 1.0
            {
                return Err(LedgerError::Invalid(format!("budget {b}: delta must be below 1")));
            }
            let fits = match account {
                Account::Overall => matches!(b, Guarantee::PureDp { .. }),
                Account::LocalRdp => matches!(b, Guarantee::ApproxDp { delta, .. } if *delta > 0.0),
                other => Account::of(b) == *other,
            };
            if !fits {
                return Err(LedgerError::Invalid(format!("a {b} is not a budget of the {account} account")));
            }
            if budgets[..i].iter().any(|(o, _)| o == account) {
                return Err(LedgerError::Invalid(format!("two budgets in the {account} account; give one")));
            }
        }
        let tx = self.begin(TransactionBehavior::Immediate)?;
        let mut state = self.load(dataset)?;
        for (account, b) in &budgets {
            let account = *account;
            let lists = state.lists();
            match accounts::total(account, &lists, Some(b), true) {
                Err(u) => {
                    return Err(LedgerError::BudgetUnaccountable {
                        dataset: dataset.into(),
                        notion: account.key(),
                        which: state.describe(&u),
                        reason: u.reason,
                    });
                }
                Ok(t) if !accounts::fits_in(account, &t, b, lists.len()) => {
                    return Err(LedgerError::BelowSpent {
                        dataset: dataset.into(),
                        notion: account.key(),
                        total: Box::new(t),
                        budget: Box::new(*b),
                    });
                }
                Ok(_) => {}
            }
            let json = to_json(b);
            let set_at: String = tx
                .query_row(
                    &format!(
                        "INSERT INTO budgets (dataset, account, budget) VALUES (?1, ?2, ?3)
                         ON CONFLICT (dataset, account) DO UPDATE SET budget = excluded.budget, set_at = {NOW}
                         RETURNING set_at"
                    ),
                    params![dataset, account.key(), json],
                    |r| r.get(0),
                )
                .map_err(|e| self.sql(e))?;
            tx.execute(
                "INSERT INTO budget_log (at, dataset, account, budget) VALUES (?1, ?2, ?3, ?4)",
                params![set_at, dataset, account.key(), json],
            )
            .map_err(|e| self.sql(e))?;
            state.budgets.retain(|e| e.account != account.key());
            state.budgets.push(BudgetEntry { dataset: dataset.into(), account: account.key(), budget: *b, set_at });
        }
        let spent = state.spent(None);
        tx.commit().map_err(|e| self.sql(e))?;
        Ok(spent)
    }

    /// The budgets of one data set, or of all.
    pub fn budgets(&self, dataset: Option<&str>) -> Result<Vec<BudgetEntry>, LedgerError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT dataset, account, budget, set_at FROM budgets WHERE ?1 IS NULL OR dataset = ?1
                 ORDER BY dataset, account",
            )
            .map_err(|e| self.sql(e))?;
        let rows: Vec<(String, String, String, String)> = stmt
            .query_map(params![dataset], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .and_then(|rows| rows.collect())
            .map_err(|e| self.sql(e))?;
        rows.into_iter()
            .map(|(dataset, account, json, set_at)| {
                let budget = self.parse_budget(&dataset, &account, &json)?;
                Ok(BudgetEntry { dataset, account, budget, set_at })
            })
            .collect()
    }

    fn parse_budget(&self, dataset: &str, account: &str, json: &str) -> Result<Guarantee, LedgerError> {
        let budget: Guarantee = parse_json(json)
            .map_err(|e| self.corrupt(format!("the {account} budget of {dataset:?} is unreadable: {e}")))?;
        budget.validate().map_err(|e| self.corrupt(format!("the {account} budget of {dataset:?}: {e}")))?;
        let fits = match Account::from_key(account) {
            Some(Account::Overall) => matches!(budget, Guarantee::PureDp { .. }),
            Some(Account::LocalRdp) => matches!(budget, Guarantee::ApproxDp { delta, .. } if delta > 0.0),
            Some(a) => Account::of(&budget) == a,
            None => false,
        };
        if !fits {
            return Err(self.corrupt(format!("the {account} budget of {dataset:?} is a {budget}")));
        }
        // A metric budget written before budgets stated their additive allowance gets the default one.
        Ok(accounts::with_allowance(budget))
    }

    /// The releases of one data set, or of all, oldest first.
    pub fn releases(&self, dataset: Option<&str>) -> Result<Vec<Release>, LedgerError> {
        self.query_releases("WHERE ?1 IS NULL OR dataset = ?1", params![dataset])
    }

    fn query_releases(&self, filter: &str, args: impl rusqlite::Params) -> Result<Vec<Release>, LedgerError> {
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT id, at, dataset, mechanism, guarantees, request_id FROM releases {filter} ORDER BY id"
            ))
            .map_err(|e| self.sql(e))?;
        type Row = (i64, String, String, String, String, Option<String>);
        let rows: Vec<Row> = stmt
            .query_map(args, |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))
            .and_then(|rows| rows.collect())
            .map_err(|e| self.sql(e))?;
        rows.into_iter()
            .map(|(id, at, dataset, mechanism, json, request_id)| {
                let guarantees: Vec<Guarantee> = parse_json(&json)
                    .map_err(|e| self.corrupt(format!("release #{id} has unreadable guarantees: {e}")))?;
                check_guarantees(&guarantees).map_err(|e| self.corrupt(format!("release #{id}: {e}")))?;
                Ok(Release { id, at, dataset, mechanism, guarantees, request_id })
            })
            .collect()
    }

    /// The release recorded under `request_id`, if any.
    pub fn find_request(&self, request_id: &str) -> Result<Option<Release>, LedgerError> {
        Ok(self.query_releases("WHERE request_id = ?1", params![request_id])?.into_iter().next())
    }

    /// Every data set with a budget or a release, sorted.
    pub fn datasets(&self) -> Result<Vec<String>, LedgerError> {
        let mut stmt = self
            .conn
            .prepare("SELECT dataset FROM budgets UNION SELECT dataset FROM releases ORDER BY 1")
            .map_err(|e| self.sql(e))?;
        stmt.query_map([], |r| r.get(0)).and_then(|rows| rows.collect()).map_err(|e| self.sql(e))
    }

    fn load(&self, dataset: &str) -> Result<DatasetState, LedgerError> {
        Ok(DatasetState {
            dataset: dataset.to_string(),
            budgets: self.budgets(Some(dataset))?,
            releases: self.releases(Some(dataset))?,
        })
    }

    /// What `dataset` has spent under each notion: the composed total (or why there is none), its budget, what
    /// remains, and a standard guarantee beside zCDP, GDP, Rao and metric totals. A data set the ledger has
    /// never seen has spent nothing.
    pub fn spent(&self, dataset: &str) -> Result<Spent, LedgerError> {
        check_label(dataset, "data set")?;
        let _read = self.begin(TransactionBehavior::Deferred)?;
        Ok(self.load(dataset)?.spent(None))
    }

    /// A dry run of [`Ledger::record`]: may `dataset` release once more with these guarantees? `Ok` with the
    /// spending the release would leave, or the refusal `record` would give ([`LedgerError::OverBudget`],
    /// [`LedgerError::Unaccountable`]). Writes nothing; the answer holds until another release is recorded.
    pub fn check(&self, dataset: &str, guarantees: &[Guarantee]) -> Result<Spent, LedgerError> {
        check_label(dataset, "data set")?;
        check_guarantees(guarantees)?;
        let _read = self.begin(TransactionBehavior::Deferred)?;
        let state = self.load(dataset)?;
        state.admit(guarantees)?;
        Ok(state.spent(Some(guarantees)))
    }

    /// A dry run of [`Ledger::record_new`]: the refusal it would give now ([`LedgerError::RequestIdUsed`],
    /// [`LedgerError::NoBudget`], [`LedgerError::OverBudget`], [`LedgerError::Unaccountable`]), or the spending
    /// the release would leave. Writes nothing.
    pub fn check_new(
        &self,
        dataset: &str,
        guarantees: &[Guarantee],
        request_id: Option<&str>,
        admission: Admission,
    ) -> Result<Spent, LedgerError> {
        check_label(dataset, "data set")?;
        check_guarantees(guarantees)?;
        let _read = self.begin(TransactionBehavior::Deferred)?;
        let state = self.load(dataset)?;
        self.admit_new(&state, guarantees, request_id, admission)?;
        Ok(state.spent(Some(guarantees)))
    }

    /// The checks of a new release beyond its budgets: an unused request id, and a budget unless allowed.
    fn admit_new(
        &self,
        state: &DatasetState,
        guarantees: &[Guarantee],
        request_id: Option<&str>,
        admission: Admission,
    ) -> Result<(), LedgerError> {
        if let Some(rid) = request_id {
            check_label(rid, "request id")?;
            if let Some(first) = self.find_request(rid)? {
                return Err(LedgerError::RequestIdUsed {
                    request_id: rid.into(),
                    id: first.id,
                    mechanism: first.mechanism,
                    at: first.at,
                });
            }
        }
        if !admission.allow_unbudgeted && state.budgets.is_empty() {
            return Err(LedgerError::NoBudget { dataset: state.dataset.clone() });
        }
        state.admit(guarantees)
    }

    /// Records a release whose noise was drawn for this request, as a front end that adds the noise itself
    /// does. Unlike [`Ledger::record`], a `request_id` already in the ledger is refused
    /// ([`LedgerError::RequestIdUsed`]) whatever the rest of the request: the release recorded under it had its
    /// own noise, so a second run is a second release, never a replay. A data set with no budget is refused
    /// ([`LedgerError::NoBudget`]) unless `admission` allows it. Check and insert are one transaction.
    pub fn record_new(
        &self,
        dataset: &str,
        mechanism: &str,
        guarantees: &[Guarantee],
        request_id: Option<&str>,
        admission: Admission,
    ) -> Result<Receipt, LedgerError> {
        check_label(dataset, "data set")?;
        check_label(mechanism, "mechanism")?;
        check_guarantees(guarantees)?;
        let tx = self.begin(TransactionBehavior::Immediate)?;
        let state = self.load(dataset)?;
        self.admit_new(&state, guarantees, request_id, admission)?;
        self.insert(tx, state, mechanism, guarantees, request_id, || {})
    }

    /// Records a release of `dataset` by `mechanism` with every guarantee the mechanism reported, if it fits
    /// every budget of the data set; otherwise refuses it ([`LedgerError::OverBudget`], or
    /// [`LedgerError::Unaccountable`] when a budgeted notion cannot express it) and records nothing. The check
    /// and the insert are one `BEGIN IMMEDIATE` transaction, so concurrent writers cannot together pass a
    /// budget. With a `request_id`, recording the same release again (a retry after a crash or a lost answer)
    /// returns the first receipt with `replayed: true` and adds nothing; the same id with a different release
    /// is [`LedgerError::RequestIdConflict`].
    pub fn record(
        &self,
        dataset: &str,
        mechanism: &str,
        guarantees: &[Guarantee],
        request_id: Option<&str>,
    ) -> Result<Receipt, LedgerError> {
        self.record_with_hook(dataset, mechanism, guarantees, request_id, || {})
    }

    /// [`Ledger::record`], calling `hook` after the insert and before the commit (for crash tests).
    #[doc(hidden)]
    pub fn record_with_hook(
        &self,
        dataset: &str,
        mechanism: &str,
        guarantees: &[Guarantee],
        request_id: Option<&str>,
        hook: impl FnOnce(),
    ) -> Result<Receipt, LedgerError> {
        check_label(dataset, "data set")?;
        check_label(mechanism, "mechanism")?;
        check_guarantees(guarantees)?;
        if let Some(id) = request_id {
            check_label(id, "request id")?;
        }
        let json = to_json(guarantees);
        let tx = self.begin(TransactionBehavior::Immediate)?;
        if let Some(rid) = request_id
            && let Some(first) = self.find_request(rid)?
        {
            let mut differs = Vec::new();
            if first.dataset != dataset {
                differs.push(format!("data set {:?}", first.dataset));
            }
            if first.mechanism != mechanism {
                differs.push(format!("mechanism {:?}", first.mechanism));
            }
            if to_json(&first.guarantees) != json {
                differs.push(format!("guarantees {}", to_json(&first.guarantees)));
            }
            if !differs.is_empty() {
                return Err(LedgerError::RequestIdConflict {
                    request_id: rid.into(),
                    id: first.id,
                    differs: differs.join(", "),
                });
            }
            let spent = self.load(dataset)?.spent(None);
            return Ok(Receipt { release: first, replayed: true, spent });
        }
        let state = self.load(dataset)?;
        state.admit(guarantees)?;
        self.insert(tx, state, mechanism, guarantees, request_id, hook)
    }

    /// Inserts an admitted release and commits.
    fn insert(
        &self,
        tx: Transaction<'_>,
        mut state: DatasetState,
        mechanism: &str,
        guarantees: &[Guarantee],
        request_id: Option<&str>,
        hook: impl FnOnce(),
    ) -> Result<Receipt, LedgerError> {
        let dataset = state.dataset.clone();
        let json = to_json(guarantees);
        let (id, at): (i64, String) = tx
            .query_row(
                "INSERT INTO releases (dataset, mechanism, guarantees, request_id) VALUES (?1, ?2, ?3, ?4)
                 RETURNING id, at",
                params![dataset, mechanism, json, request_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(|e| self.sql(e))?;
        hook();
        let release = Release {
            id,
            at,
            dataset,
            mechanism: mechanism.into(),
            guarantees: guarantees.to_vec(),
            request_id: request_id.map(str::to_string),
        };
        state.releases.push(release.clone());
        let spent = state.spent(None);
        tx.commit().map_err(|e| self.sql(e))?;
        Ok(Receipt { release, replayed: false, spent })
    }

    /// The whole ledger as one document (data sets with their budgets, releases and totals; the budget
    /// history), read in one transaction so it is a consistent snapshot.
    pub fn export(&self) -> Result<Export, LedgerError> {
        let _read = self.begin(TransactionBehavior::Deferred)?;
        let now: String = self.conn.query_row(&format!("SELECT {NOW}"), [], |r| r.get(0)).map_err(|e| self.sql(e))?;
        let created_at: String = self
            .conn
            .query_row("SELECT value FROM ledger_info WHERE key = 'created_at'", [], |r| r.get(0))
            .optional()
            .map_err(|e| self.sql(e))?
            .unwrap_or_default();
        let mut datasets = Vec::new();
        for dataset in self.datasets()? {
            let state = self.load(&dataset)?;
            let spent = state.spent(None);
            datasets.push(DatasetExport { dataset, budgets: state.budgets, releases: state.releases, spent });
        }
        let mut stmt = self
            .conn
            .prepare("SELECT dataset, account, budget, at FROM budget_log ORDER BY id")
            .map_err(|e| self.sql(e))?;
        let rows: Vec<(String, String, String, String)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .and_then(|rows| rows.collect())
            .map_err(|e| self.sql(e))?;
        let budget_history = rows
            .into_iter()
            .map(|(dataset, account, json, at)| {
                let budget = self.parse_budget(&dataset, &account, &json)?;
                Ok(BudgetChange { dataset, account, budget, at })
            })
            .collect::<Result<_, LedgerError>>()?;
        Ok(Export {
            format: "manifold-dp-ledger",
            schema_version: SCHEMA_VERSION,
            exported_at: now,
            created_at,
            ledger: self.path.display().to_string(),
            report_delta: REPORT_DELTA,
            datasets,
            budget_history,
        })
    }
}

/// Maps SQLite's failures: a file that is not a database, or a damaged one, is reported as such.
fn classify(path: &Path, e: rusqlite::Error) -> LedgerError {
    match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => {
            LedgerError::NotALedger { path: path.to_path_buf(), reason: format!("not an SQLite database ({e})") }
        }
        Some(ErrorCode::DatabaseCorrupt) => LedgerError::Corrupt { path: path.to_path_buf(), detail: e.to_string() },
        _ => LedgerError::Sqlite { path: path.to_path_buf(), source: Box::new(e) },
    }
}

/// One data set's budgets and releases, read inside a transaction.
struct DatasetState {
    dataset: String,
    budgets: Vec<BudgetEntry>,
    releases: Vec<Release>,
}

impl DatasetState {
    fn lists(&self) -> Vec<&[Guarantee]> {
        self.releases.iter().map(|r| r.guarantees.as_slice()).collect()
    }

    fn budget(&self, account: Account) -> Option<&Guarantee> {
        let key = account.key();
        self.budgets.iter().find(|b| b.account == key).map(|b| &b.budget)
    }

    /// Which release an [`Unaccounted`] blames, as text (an index past the recorded releases is the new one).
    fn describe(&self, u: &Unaccounted) -> String {
        match u.index.map(|i| self.releases.get(i)) {
            Some(Some(r)) => format!("release #{} ({})", r.id, r.mechanism),
            Some(None) => "the new release".into(),
            None => "the total".into(),
        }
    }

    /// The account a budget entry is kept in.
    fn account_of(entry: &BudgetEntry) -> Account {
        Account::from_key(&entry.account).unwrap_or_else(|| Account::of(&entry.budget))
    }

    /// Refuses `new` if the data set has budgets but none for its kind (local or central), if, added to the
    /// recorded releases, it would exceed a budget, or if it cannot be accounted in one that it touches.
    fn admit(&self, new: &[Guarantee]) -> Result<(), LedgerError> {
        let kind = ReleaseKind::of(new);
        // The overall cap is a budget of both kinds.
        let covers = |b: &BudgetEntry| Self::account_of(b).kind().is_none_or(|k| k == kind);
        if !self.budgets.is_empty() && !self.budgets.iter().any(covers) {
            return Err(LedgerError::NoBudgetForKind { dataset: self.dataset.clone(), kind, release: new.to_vec() });
        }
        let before = self.lists();
        let mut after = before.clone();
        after.push(new);
        for entry in &self.budgets {
            let account = Self::account_of(entry);
            let budget = &entry.budget;
            match accounts::total(account, &after, Some(budget), true) {
                Err(u) => {
                    return Err(LedgerError::Unaccountable {
                        dataset: self.dataset.clone(),
                        notion: account.key(),
                        which: self.describe(&u),
                        reason: u.reason,
                    });
                }
                Ok(total) if !accounts::fits_in(account, &total, budget, after.len()) => {
                    let spent = accounts::total(account, &before, Some(budget), true).unwrap_or(total);
                    return Err(LedgerError::OverBudget(Box::new(Overdraft {
                        dataset: self.dataset.clone(),
                        notion: account.key(),
                        total,
                        budget: *budget,
                        spent,
                        release: new.to_vec(),
                    })));
                }
                Ok(_) => {}
            }
        }
        Ok(())
    }

    /// The spending under each notion, with `extra` (a hypothetical release) added if given.
    fn spent(&self, extra: Option<&[Guarantee]>) -> Spent {
        let mut lists = self.lists();
        lists.extend(extra);
        let mut order: Vec<Account> = Account::STANDARD.to_vec();
        let mut metric: Vec<Account> = self
            .budgets
            .iter()
            .map(Self::account_of)
            .chain(lists.iter().flat_map(|r| r.iter().map(Account::of)))
            .filter(|a| matches!(a, Account::Metric { .. }))
            .collect();
        metric.sort_by_key(Account::key);
        metric.dedup();
        order.extend(metric);
        if self.budget(Account::LocalRdp).is_some() {
            order.push(Account::LocalRdp);
        }
        if self.budget(Account::Overall).is_some() {
            order.push(Account::Overall);
        }
        let totals: Vec<(Account, Result<Guarantee, Unaccounted>)> = order
            .iter()
            .map(|&a| {
                // A metric account without a budget is a view of the local releases it can express (another
                // metric's are left out); every other account says when a release cannot be expressed in it.
                let budget = self.budget(a);
                let strict = budget.is_some() || !matches!(a, Account::Metric { .. });
                (a, accounts::total(a, &lists, budget, strict))
            })
            .collect();
        let find = |n: Notion| {
            totals.iter().find(|(a, _)| *a == Account::Notion(n)).and_then(|(_, t)| t.as_ref().ok()).copied()
        };
        let (pure, approx) = (find(Notion::Pure), find(Notion::Approx));
        // The model's combined guarantee: in the label's local account (the one with a budget, else the first
        // with a release), and the central releases' pure total (or (ε, δ) total when one has no pure ε).
        let local = {
            let metric_totals = || {
                totals
                    .iter()
                    .filter(|(a, _)| matches!(a, Account::Metric { .. }))
                    .filter_map(|(a, t)| Some((*a, *t.as_ref().ok()?)))
            };
            metric_totals()
                .find(|(a, _)| self.budget(*a).is_some())
                .or_else(|| metric_totals().find(|(_, t)| t.epsilon().is_some_and(|e| e > 0.0)))
                .map(|(_, t)| t)
        };
        let strict = |n: Notion| accounts::total(Account::Notion(n), &lists, None, true).ok();
        let central = strict(Notion::Pure).or_else(|| strict(Notion::Approx));
        let combined = accounts::combined(local, central);
        let notions = totals
            .into_iter()
            .map(|(account, total)| {
                let budget = self.budget(account).copied();
                let (total, not_accountable) = match total {
                    Ok(t) => (Some(t), None),
                    Err(u) => {
                        let which = self.describe(&u);
                        (None, Some(format!("{which}: {}", u.reason)))
                    }
                };
                // What is left of a Rényi budget is no difference of (ε, δ)'s: it is the curve's room at each
                // order, so none is stated.
                let remaining = total
                    .zip(budget)
                    .filter(|_| account != Account::LocalRdp)
                    .and_then(|(t, b)| accounts::remaining(&t, &b));
                let within_budget = total.zip(budget).map(|(t, b)| accounts::fits_in(account, &t, &b, lists.len()));
                let negligible_delta = accounts::negligible_delta(account, &lists);
                let standard = total
                    .and_then(|t| accounts::standard_companion(&t, negligible_delta, pure.as_ref(), approx.as_ref()));
                NotionSpent {
                    account: account.key(),
                    notion: account.notion(),
                    total,
                    not_accountable,
                    budget,
                    remaining,
                    within_budget,
                    standard,
                    negligible_delta,
                    testing_meaning: account.notion().has_testing_meaning(),
                }
            })
            .collect();
        Spent {
            dataset: self.dataset.clone(),
            releases: lists.len() as u64,
            last_release_at: self.releases.last().map(|r| r.at.clone()),
            notions,
            combined,
        }
    }
}
