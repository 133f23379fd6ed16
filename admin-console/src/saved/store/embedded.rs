//! The embedded store: one redb file (`saved_queries.path`). redb commits each write
//! transaction durably (its default `Durability::Immediate`: the commit returns after the fsync)
//! and recovers a file left by a crash at the next open, so a saved query is on disk when the API
//! answers. Write transactions are serialised by redb, which makes the version check and the
//! write one atomic step. The file is opened at the first use; applications in one process
//! naming the same file share the open database (redb refuses a second open).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};

use super::{Expected, SavedQueries, StoreError, Written, decode, encode};
use crate::saved::SavedQuery;

const QUERIES: TableDefinition<&str, &[u8]> = TableDefinition::new("saved_queries");

pub(crate) struct EmbeddedStore {
    path: PathBuf,
    database: OnceLock<Arc<Database>>,
}

/// The databases open in this process, by path.
fn open_databases() -> &'static Mutex<HashMap<PathBuf, Weak<Database>>> {
    static OPEN: OnceLock<Mutex<HashMap<PathBuf, Weak<Database>>>> = OnceLock::new();
    OPEN.get_or_init(Default::default)
}

fn failed(path: &std::path::Path, error: impl std::fmt::Display) -> StoreError {
    StoreError(format!(
        "the saved-query file {} cannot be used: {error}",
        path.display()
    ))
}

impl EmbeddedStore {
    pub(crate) fn new(path: PathBuf) -> Self {
        Self {
            path,
            database: OnceLock::new(),
        }
    }

    /// The open database (opened, created with its parent directory, at the first call).
    fn database(&self) -> Result<Arc<Database>, StoreError> {
        if let Some(database) = self.database.get() {
            return Ok(database.clone());
        }
        let mut open = open_databases()
            .lock()
            .map_err(|_| failed(&self.path, "a previous open failed"))?;
        let database = match open.get(&self.path).and_then(Weak::upgrade) {
            Some(database) => database,
            None => {
                if let Some(parent) = self.path.parent().filter(|p| !p.as_os_str().is_empty()) {
                    std::fs::create_dir_all(parent).map_err(|e| failed(&self.path, e))?;
                }
                let database = Database::create(&self.path).map_err(|e| failed(&self.path, e))?;
                let create = database
                    .begin_write()
                    .map_err(redb::Error::from)
                    .and_then(|txn| {
                        txn.open_table(QUERIES)?;
                        Ok(txn.commit()?)
                    });
                create.map_err(|e| failed(&self.path, e))?;
                let database = Arc::new(database);
                open.insert(self.path.clone(), Arc::downgrade(&database));
                database
            }
        };
        Ok(self.database.get_or_init(|| database).clone())
    }

    /// Runs `work` on the blocking pool with the open database.
    fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Database) -> Result<T, redb::Error> + Send + 'static,
    ) -> BoxFuture<'_, Result<T, StoreError>> {
        async move {
            let database = tokio::task::spawn_blocking({
                let path = self.path.clone();
                let database = self.database();
                move || {
                    let database = database?;
                    work(&database).map_err(|e| failed(&path, e))
                }
            });
            database.await.map_err(|e| failed(&self.path, e))?
        }
        .boxed()
    }
}

fn stored(
    table: &impl ReadableTable<&'static str, &'static [u8]>,
    id: &str,
) -> Result<Option<SavedQuery>, redb::Error> {
    match table.get(id)? {
        Some(bytes) => Ok(Some(decode(bytes.value()).map_err(as_redb)?)),
        None => Ok(None),
    }
}

fn as_redb(error: StoreError) -> redb::Error {
    redb::Error::Corrupted(error.0)
}

/// The version check and the change in one write transaction (`None`: delete).
fn check_and_set(
    database: &Database,
    id: &str,
    expected: Expected,
    value: Option<Vec<u8>>,
) -> Result<Written, redb::Error> {
    let txn = database.begin_write()?;
    let outcome = {
        let mut table = txn.open_table(QUERIES)?;
        let current = stored(&table, id)?;
        if !expected.holds_for(current.as_ref()) {
            return Ok(Written::Conflict(current.map(Box::new)));
        }
        match value {
            Some(bytes) => table.insert(id, bytes.as_slice())?,
            None => table.remove(id)?,
        };
        Written::Done
    };
    txn.commit()?;
    Ok(outcome)
}

impl SavedQueries for EmbeddedStore {
    fn all(&self) -> BoxFuture<'_, Result<Vec<SavedQuery>, StoreError>> {
        self.run(|database| {
            let txn = database.begin_read()?;
            let table = txn.open_table(QUERIES)?;
            let mut queries = Vec::new();
            for entry in table.iter()? {
                let (_, bytes) = entry?;
                queries.push(decode(bytes.value()).map_err(as_redb)?);
            }
            Ok(queries)
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<SavedQuery>, StoreError>> {
        let id = id.to_owned();
        self.run(move |database| {
            let txn = database.begin_read()?;
            stored(&txn.open_table(QUERIES)?, &id)
        })
    }

    fn put(
        &self,
        query: SavedQuery,
        expected: Expected,
    ) -> BoxFuture<'_, Result<Written, StoreError>> {
        let bytes = match encode(&query) {
            Ok(bytes) => bytes,
            Err(error) => return futures_util::future::ready(Err(error)).boxed(),
        };
        self.run(move |database| check_and_set(database, &query.id, expected, Some(bytes)))
    }

    fn delete<'a>(
        &'a self,
        id: &'a str,
        version: u64,
    ) -> BoxFuture<'a, Result<Written, StoreError>> {
        let id = id.to_owned();
        self.run(move |database| check_and_set(database, &id, Expected::Version(version), None))
    }
}
