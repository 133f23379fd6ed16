//! For unit tests: what the text format writes while a closure runs, through the same field
//! formatter as the services' text logs.

use std::io;
use std::sync::{Arc, Mutex};

use tracing_subscriber::fmt::MakeWriter;

use super::escape::EscapedFields;

/// The bytes a subscriber wrote, shared with the test that reads them.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for Captured {
    type Writer = Self;

    fn make_writer(&'a self) -> Self {
        self.clone()
    }
}

/// The text records (without timestamps) of what `emit` logs on this thread.
pub(crate) fn text_record(emit: impl FnOnce()) -> String {
    let captured = Captured::default();
    let subscriber = tracing_subscriber::fmt()
        .fmt_fields(EscapedFields::default())
        .with_ansi(false)
        .with_target(false)
        .without_time()
        .with_writer(captured.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, emit);
    let bytes = captured
        .0
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone();
    String::from_utf8_lossy(&bytes).into_owned()
}
