//! A stored record's JSON, kept LZ4-compressed against a dictionary of what every record shares.
//!
//! The JSON of the records is most of what the service keeps (at 50,000 ingresses, 60 MiB of
//! the memory over idle). A record's JSON repeats its field names and the few fixed messages
//! of the dashboard, and within itself its hosts and service names; LZ4 against a dictionary
//! of sample records (field names, values and messages as the service writes them) keeps it in
//! about a quarter of the bytes, and
//! unpacks it at several GB/s, so a 50,000-record snapshot costs a few tens of milliseconds
//! more to write. Packing is deterministic: two records with the same JSON have the same bytes,
//! so the hub compares records without unpacking them.

use std::sync::LazyLock;

use actix_web::web::BytesMut;

thread_local! {
    /// Where a record is compressed before it is stored at its exact size.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// What records share: records the service builds from sample objects, serialised
/// ([`super::dictionary`]). Only the compression ratio depends on it, never the result:
/// whatever it holds, a record unpacks to exactly its JSON.
static DICTIONARY: LazyLock<Vec<u8>> = LazyLock::new(super::dictionary::build);

/// A record's JSON, compressed. Equal JSON gives equal values.
#[derive(Debug, PartialEq, Eq)]
pub struct PackedJson {
    /// An LZ4 block of the JSON against [`DICTIONARY`], in the long-lived heap.
    bytes: Box<[u8]>,
    /// The JSON's length in bytes.
    len: u32,
}

impl PackedJson {
    /// Packs `json` (a record's: far below 4 GiB).
    pub fn pack(json: &[u8]) -> Self {
        let len = u32::try_from(json.len()).expect("a record's JSON is below 4 GiB");
        let bytes = SCRATCH.with_borrow_mut(|scratch| {
            scratch.clear();
            scratch.resize(lz4_flex::block::get_maximum_output_size(json.len()), 0);
            let written = lz4_flex::block::compress_into_with_dict(json, scratch, &DICTIONARY)
                .expect("the scratch buffer has the maximum output size");
            crate::alloc::long_lived(|| Box::<[u8]>::from(&scratch[..written]))
        });
        Self { bytes, len }
    }

    /// The JSON's length in bytes.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// The compressed size in bytes.
    #[cfg(test)]
    pub fn packed_len(&self) -> usize {
        self.bytes.len()
    }

    /// Appends the JSON to `out`.
    pub fn write_to(&self, out: &mut BytesMut) {
        let start = out.len();
        out.resize(start + self.len(), 0);
        self.unpack_into(&mut out[start..]);
    }

    /// The JSON.
    pub fn unpack(&self) -> String {
        let mut out = vec![0; self.len()];
        self.unpack_into(&mut out);
        String::from_utf8(out).expect("records are packed from UTF-8 JSON")
    }

    /// Writes the JSON into `out`, exactly [`PackedJson::len`] bytes long.
    fn unpack_into(&self, out: &mut [u8]) {
        let written = lz4_flex::block::decompress_into_with_dict(&self.bytes, out, &DICTIONARY)
            .expect("a block this module packed unpacks");
        debug_assert_eq!(written, self.len());
    }

    #[cfg(test)]
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_and_unpacks_exactly() {
        for json in [
            "".to_owned(),
            "{}".to_owned(),
            r#"{"kind":"Ingress","name":"web","hosts":["web.example.com"],"links":[{"host":"web.example.com","url":"https://web.example.com/"}]}"#.to_owned(),
            format!(r#"{{"annotations":{{"x":"{}"}}}}"#, "é€𝄞\\n".repeat(5_000)),
        ] {
            let packed = PackedJson::pack(json.as_bytes());
            assert_eq!(packed.unpack(), json);
            assert_eq!(packed.len(), json.len());
            let mut out = BytesMut::from(&b"before,"[..]);
            packed.write_to(&mut out);
            assert_eq!(out, format!("before,{json}").as_bytes());
        }
    }

    /// Why the module exists: a typical ingress's record (the benchmark's sample shape, with
    /// its backends and an unread certificate) keeps about a quarter of its bytes: no more than
    /// the 26.7% the hand-typed dictionary this one replaced reached (25.2% on 2026-11-28).
    #[test]
    fn a_typical_record_packs_to_about_a_quarter() {
        let mut total = (0, 0);
        for index in 0..200 {
            let (name, namespace) = (format!("app-{index:05}"), format!("team-{:03}", index % 7));
            let host = format!("{name}.{namespace}.example.com");
            let json = format!(
                r#"{{"kind":"Ingress","uid":"6b756265-0000-0000-0000-{index:012}","name":"{name}","namespace":"{namespace}","ingressClassName":"nginx","hosts":["{host}"],"rules":[{{"host":"{host}","paths":[{{"path":"/","pathType":"Prefix","backend":{{"service":{{"name":"{name}","port":80}}}}}},{{"path":"/api","pathType":"Prefix","backend":{{"service":{{"name":"{name}-api","port":"http"}}}}}}]}}],"tls":[{{"hosts":["{host}"],"secretName":"{name}-tls"}}],"addresses":["lb-{index}.elb.example.com"],"labels":{{"app.kubernetes.io/name":"{name}","app.kubernetes.io/part-of":"{namespace}"}},"annotations":{{"nginx.ingress.kubernetes.io/proxy-body-size":"8m"}},"createdAt":"2026-11-24T17:12:33Z","resourceVersion":"{}","links":[{{"host":"{host}","url":"https://{host}/"}}],"backends":[{{"service":"{name}","namespace":"{namespace}","port":80,"state":"ready","readyEndpoints":2,"totalEndpoints":2}},{{"service":"{name}-api","namespace":"{namespace}","port":"http","state":"missing_service","readyEndpoints":0,"totalEndpoints":0}}],"certificates":[{{"secretName":"{name}-tls","hosts":["{host}"],"source":"not_read","error":"Secrets are not read (certificates.read_secrets is false), and no cert-manager Certificate writes this Secret."}}]}}"#,
                1000 + index
            );
            let packed = PackedJson::pack(json.as_bytes());
            assert_eq!(packed.unpack(), json);
            total = (total.0 + json.len(), total.1 + packed.packed_len());
        }
        eprintln!(
            "RATIO {} -> {} = {:.4}",
            total.0,
            total.1,
            total.1 as f64 / total.0 as f64
        );
        assert!(
            total.1 * 1000 < total.0 * 267,
            "{} bytes packed to {}",
            total.0,
            total.1
        );
    }

    #[test]
    fn equal_json_packs_to_equal_values_and_different_json_does_not() {
        let a = r#"{"kind":"Ingress","name":"web","resourceVersion":"1"}"#;
        let b = r#"{"kind":"Ingress","name":"web","resourceVersion":"2"}"#;
        assert_eq!(
            PackedJson::pack(a.as_bytes()),
            PackedJson::pack(a.as_bytes())
        );
        assert_ne!(
            PackedJson::pack(a.as_bytes()),
            PackedJson::pack(b.as_bytes())
        );
    }
}
