//! The `Snapshot` JSON body written in chunks.
//!
//! A full snapshot of 10,000 ingresses is about 7 MB of JSON. Serialising it into one buffer
//! made every worker's allocator keep a buffer that size after the response (measured: +27 MiB
//! resident after repeated full snapshots). The records are already stored as JSON, so the body
//! is copied out a chunk at a time instead; peak memory per response is one chunk plus what the
//! gzip encoder holds.

use actix_web::web::{BufMut, Bytes, BytesMut};

use crate::hub::{NamespaceError, Notice, Snapshot};
use crate::records::StoredRecord;
use std::sync::Arc;

/// Size a chunk is filled to before it is handed to the response (one record may overrun it).
pub const CHUNK_BYTES: usize = 32 * 1024;

/// Yields `{"items":[...],"errors":[...],"notices":[...],"expiryWarningDays":N}` (and
/// `"eventId":N` before the end when there is one) in chunks of about [`CHUNK_BYTES`]: byte for
/// byte what serialising the [`Snapshot`] gives, or in [`Layout::LinePerItem`] the same JSON with
/// a line break before each item and before the `]` that closes them.
pub struct JsonChunks {
    layout: Layout,
    items: std::vec::IntoIter<Arc<StoredRecord>>,
    errors: Vec<NamespaceError>,
    notices: Vec<Notice>,
    expiry_warning_days: u32,
    event_id: Option<u64>,
    chunk_bytes: usize,
    wrote_any_item: bool,
    stage: Stage,
}

/// How the body is laid out; both are the same JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One line (an SSE event's data may not hold a line break).
    OneLine,
    /// `{"items":[` on the first line, then each item on a line of its own (each but the last
    /// followed by a comma), then a line from `],"errors":` to the end: a client may parse the
    /// records of each complete line while the rest arrives (web/src/api/snapshotBody.ts). A
    /// stored record's JSON never holds a raw line break (serde_json escapes them in strings).
    LinePerItem,
}

#[derive(PartialEq)]
enum Stage {
    Opening,
    Items,
    Done,
}

impl Snapshot {
    pub fn into_json_chunks(self, layout: Layout) -> JsonChunks {
        self.into_json_chunks_of(layout, CHUNK_BYTES)
    }

    /// The same in chunks of about `chunk_bytes`.
    pub(crate) fn into_json_chunks_of(self, layout: Layout, chunk_bytes: usize) -> JsonChunks {
        JsonChunks {
            layout,
            items: self.items.into_iter(),
            errors: self.errors,
            notices: self.notices,
            expiry_warning_days: self.expiry_warning_days,
            event_id: self.event_id,
            chunk_bytes,
            wrote_any_item: false,
            stage: Stage::Opening,
        }
    }
}

impl Iterator for JsonChunks {
    type Item = Bytes;

    fn next(&mut self) -> Option<Bytes> {
        if self.stage == Stage::Done {
            return None;
        }
        let mut chunk = BytesMut::with_capacity(self.chunk_bytes + 1024);
        if self.stage == Stage::Opening {
            chunk.put_slice(br#"{"items":["#);
            self.stage = Stage::Items;
        }
        while chunk.len() < self.chunk_bytes {
            let line_break = self.layout == Layout::LinePerItem;
            let Some(record) = self.items.next() else {
                if line_break {
                    chunk.put_u8(b'\n');
                }
                chunk.put_slice(br#"],"errors":"#);
                serde_json::to_writer((&mut chunk).writer(), &self.errors)
                    .expect("namespace errors serialise");
                chunk.put_slice(br#","notices":"#);
                serde_json::to_writer((&mut chunk).writer(), &self.notices)
                    .expect("notices serialise");
                chunk.put_slice(
                    format!(r#","expiryWarningDays":{}"#, self.expiry_warning_days).as_bytes(),
                );
                if let Some(id) = self.event_id {
                    chunk.put_slice(format!(r#","eventId":{id}"#).as_bytes());
                }
                chunk.put_u8(b'}');
                self.stage = Stage::Done;
                break;
            };
            if self.wrote_any_item {
                chunk.put_u8(b',');
            }
            self.wrote_any_item = true;
            if line_break {
                chunk.put_u8(b'\n');
            }
            record.write_json(&mut chunk);
        }
        Some(chunk.freeze())
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::networking::v1::Ingress;
    use serde_json::json;

    use super::*;
    use crate::records::IngressRecord;

    fn sample_record(name: &str) -> IngressRecord {
        let ingress: Ingress = serde_json::from_value(json!({
            "metadata": {"name": name, "namespace": "shop", "resourceVersion": "3"},
            "spec": {"rules": [{"host": format!("{name}.example.com"), "http": {"paths": [
                {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": name, "port": {"number": 80}}}},
            ]}}]},
        }))
        .unwrap();
        IngressRecord::from_ingress(&ingress, &crate::access::redaction::Redaction::none())
    }

    fn snapshot(records: usize, errors: usize) -> Snapshot {
        Snapshot {
            items: (0..records)
                .map(|index| Arc::new(StoredRecord::new(&sample_record(&format!("web-{index}")))))
                .collect(),
            errors: (0..errors)
                .map(|index| NamespaceError {
                    namespace: format!("team-{index}"),
                    code: "forbidden".into(),
                    message: "ingresses is \"forbidden\"".into(),
                    status: Some(403),
                })
                .collect(),
            notices: (0..errors.min(1))
                .map(|_| Notice {
                    code: "gateway_api_not_installed".into(),
                    message: "Gateway API is not installed: HTTPRoutes are not shown.".into(),
                })
                .collect(),
            expiry_warning_days: 14,
            // Every other snapshot says where the stream resumes.
            event_id: (records % 2 == 1).then_some(41 + records as u64),
            position: None,
        }
    }

    fn joined(chunks: JsonChunks) -> (Vec<u8>, usize) {
        let mut body = Vec::new();
        let mut count = 0;
        for chunk in chunks {
            body.extend_from_slice(&chunk);
            count += 1;
        }
        (body, count)
    }

    #[test]
    fn one_line_chunks_join_to_exactly_the_serialised_snapshot() {
        for (records, errors) in [(0, 0), (0, 2), (1, 0), (3, 1), (250, 0)] {
            let expected = serde_json::to_vec(&snapshot(records, errors)).unwrap();
            for chunk_bytes in [1, 100, CHUNK_BYTES] {
                let (body, _) = joined(
                    snapshot(records, errors).into_json_chunks_of(Layout::OneLine, chunk_bytes),
                );
                assert_eq!(
                    String::from_utf8(body).unwrap(),
                    String::from_utf8(expected.clone()).unwrap(),
                    "{records} records, {errors} errors, chunks of {chunk_bytes}"
                );
            }
        }
    }

    /// Line per item: the same JSON value, laid out as web/src/api/snapshotBody.ts reads it.
    #[test]
    fn line_per_item_puts_each_record_on_a_line_of_its_own() {
        for (records, errors) in [(0, 0), (0, 2), (1, 0), (3, 1), (250, 0)] {
            let expected = serde_json::to_value(snapshot(records, errors)).unwrap();
            for chunk_bytes in [1, 100, CHUNK_BYTES] {
                let (body, _) = joined(
                    snapshot(records, errors).into_json_chunks_of(Layout::LinePerItem, chunk_bytes),
                );
                let text = String::from_utf8(body).unwrap();
                let value: serde_json::Value = serde_json::from_str(&text).unwrap();
                assert_eq!(
                    value, expected,
                    "{records} records, chunks of {chunk_bytes}"
                );
                let lines: Vec<&str> = text.split('\n').collect();
                assert_eq!(lines.len(), records + 2, "{text}");
                assert_eq!(lines[0], r#"{"items":["#);
                for (index, line) in lines[1..=records].iter().enumerate() {
                    let line = if index + 1 < records {
                        line.strip_suffix(',')
                            .expect("a comma after each item but the last")
                    } else {
                        line
                    };
                    let item: IngressRecord = serde_json::from_str(line).unwrap();
                    assert_eq!(item, sample_record(&format!("web-{index}")));
                }
                assert!(lines[records + 1].starts_with(r#"],"errors":"#));
            }
        }
    }

    /// The body is written by hand, so the type that describes it on the wire (`Snapshot` in
    /// web/src/api/wire.ts, generated from [`Snapshot`]) is checked against the bytes: they parse
    /// into it, every item as an [`IngressRecord`], and nothing is lost in the round trip.
    #[test]
    fn the_written_bytes_parse_into_the_snapshot_wire_type() {
        for (records, errors) in [(0, 0), (0, 2), (1, 0), (3, 1)] {
            let (body, _) =
                joined(snapshot(records, errors).into_json_chunks_of(Layout::OneLine, 100));
            let parsed: Snapshot = serde_json::from_slice(&body)
                .unwrap_or_else(|error| panic!("{records} records, {errors} errors: {error}"));
            assert_eq!(parsed.items.len(), records);
            assert_eq!(parsed.errors, snapshot(records, errors).errors);
            for (index, item) in parsed.items.iter().enumerate() {
                let expected = sample_record(&format!("web-{index}"));
                let item: IngressRecord = serde_json::from_str(&item.json()).unwrap();
                assert_eq!(item, expected);
            }
            assert_eq!(serde_json::to_vec(&parsed).unwrap(), body);
        }
        let unknown = br#"{"items":[],"errors":[],"notices":[],"expiryWarningDays":14,"more":1}"#;
        assert!(serde_json::from_slice::<Snapshot>(unknown).is_err());
    }

    #[test]
    fn a_large_snapshot_is_cut_into_chunks_of_about_the_chunk_size() {
        let whole = serde_json::to_vec(&snapshot(2_000, 0)).unwrap().len();
        let chunks: Vec<Bytes> = snapshot(2_000, 0)
            .into_json_chunks(Layout::LinePerItem)
            .collect();
        assert!(
            chunks.len() >= whole / CHUNK_BYTES,
            "{} chunks",
            chunks.len()
        );
        let largest_record = 2_048;
        assert!(
            chunks
                .iter()
                .all(|chunk| chunk.len() < CHUNK_BYTES + largest_record)
        );
    }
}
