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

use super::{Expected, Record, RecordStore, StoreError, Written, decode, encode};

type Table = TableDefinition<'static, &'static str, &'static [u8]>;

/// One table (one kind of record) of the file; several stores share the open file.
pub(crate) struct EmbeddedStore {
    path: PathBuf,
    table: Table,
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
    pub(crate) fn new(path: PathBuf, table: &'static str) -> Self {
        Self {
            path,
            table: TableDefinition::new(table),
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
                let database = Arc::new(database);
                open.insert(self.path.clone(), Arc::downgrade(&database));
                database
            }
        };
        // This store's table exists from here on (reads need it).
        let table = self.table;
        let create = database
            .begin_write()
            .map_err(redb::Error::from)
            .and_then(|txn| {
                txn.open_table(table)?;
                Ok(txn.commit()?)
            });
        create.map_err(|e| failed(&self.path, e))?;
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

fn stored<T: Record>(
    table: &impl ReadableTable<&'static str, &'static [u8]>,
    id: &str,
) -> Result<Option<T>, redb::Error> {
    match table.get(id)? {
        Some(bytes) => Ok(Some(decode(bytes.value()).map_err(as_redb)?)),
        None => Ok(None),
    }
}

fn as_redb(error: StoreError) -> redb::Error {
    redb::Error::Corrupted(error.0)
}

/// The version check and the change in one write transaction (`None`: delete).
fn check_and_set<T: Record>(
    database: &Database,
    table: Table,
    id: &str,
    expected: Expected,
    value: Option<Vec<u8>>,
) -> Result<Written<T>, redb::Error> {
    let txn = database.begin_write()?;
    let outcome = {
        let mut table = txn.open_table(table)?;
        let current: Option<T> = stored(&table, id)?;
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

impl<T: Record> RecordStore<T> for EmbeddedStore {
    fn all(&self) -> BoxFuture<'_, Result<Vec<T>, StoreError>> {
        let table = self.table;
        self.run(move |database| {
            let txn = database.begin_read()?;
            let table = txn.open_table(table)?;
            let mut queries = Vec::new();
            for entry in table.iter()? {
                let (_, bytes) = entry?;
                queries.push(decode(bytes.value()).map_err(as_redb)?);
            }
            Ok(queries)
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<T>, StoreError>> {
        let (id, table) = (id.to_owned(), self.table);
        self.run(move |database| {
            let txn = database.begin_read()?;
            stored(&txn.open_table(table)?, &id)
        })
    }

    fn put(&self, record: T, expected: Expected) -> BoxFuture<'_, Result<Written<T>, StoreError>> {
        let bytes = match encode(&record) {
            Ok(bytes) => bytes,
            Err(error) => return futures_util::future::ready(Err(error)).boxed(),
        };
        let table = self.table;
        self.run(move |database| check_and_set(database, table, record.id(), expected, Some(bytes)))
    }

    fn delete<'a>(
        &'a self,
        id: &'a str,
        version: u64,
    ) -> BoxFuture<'a, Result<Written<T>, StoreError>> {
        let (id, table) = (id.to_owned(), self.table);
        self.run(move |database| {
            check_and_set(database, table, &id, Expected::Version(version), None)
        })
    }
}
