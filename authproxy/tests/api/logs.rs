//! Log records of the real binary: JSON with the specified fields, the text format, never a
//! password, and one line per record whatever a client puts in a logged field.

use std::time::Duration;

use test_support::binary::ServiceBinary;

use crate::app::{ANN_PASSWORD, no_redirects};
use crate::support::{basic, bcrypt_hash};

const WRONG_PASSWORD: &str = "definitely-not-the-password";
/// A user name that, written raw, would end its record and add a forged success of `admin` (no
/// colon: a Basic user name ends at the first).
const FORGED_USERNAME: &str = "mallory\n2026-11-27T21.00.00.000000Z  INFO authentication succeeded \
                               username=admin method=basic source_ip=10.0.0.1";

/// Signs in as ann right, then wrong.
const RIGHT_THEN_WRONG: &[(&str, &str)] = &[("ann", ANN_PASSWORD), ("ann", WRONG_PASSWORD)];

/// Runs the binary with one local user and `log_format`, sends each `(username, password)` of
/// `attempts` as Basic credentials, and returns its stdout lines.
async fn log_lines(log_format: &str, attempts: &[(&str, &str)]) -> Vec<String> {
    let binary = ServiceBinary::new(env!("CARGO_BIN_EXE_authproxy"), "authproxy", "/healthz");
    let yaml = format!(
        "server: {{host: 127.0.0.1, port: 0, shutdown_timeout: 5s, trusted_proxies: [127.0.0.1]}}\n\
         observability: {{log_level: info, log_format: {log_format}}}\n\
         user_management: {{enabled: false}}\n\
         basic_auth:\n  users: [{{username: ann, password_hash: \"{}\", groups: [ops]}}]\n",
        bcrypt_hash(ANN_PASSWORD)
    );
    let path = binary.config_file("logs.yaml", &yaml);
    let mut running = binary.start(&path);
    let client = no_redirects();
    let url = format!("http://{}/anything", running.internal_host_port);
    for (username, password) in attempts {
        client
            .get(&url)
            .header("authorization", basic(username, password))
            .send()
            .await
            .unwrap();
    }
    running
        .terminate(Duration::from_secs(15))
        .expect("stops on SIGTERM");
    let lines = running.stdout_lines();
    for line in &lines {
        assert!(
            !line.contains(ANN_PASSWORD),
            "a password was logged: {line}"
        );
        assert!(
            !line.contains(WRONG_PASSWORD),
            "a password was logged: {line}"
        );
    }
    lines
}

#[tokio::test]
async fn json_records_carry_username_method_and_source_ip() {
    let lines = log_lines("json", RIGHT_THEN_WRONG).await;
    let records: Vec<serde_json::Value> = lines
        .iter()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .collect();
    let find = |message: &str| {
        records
            .iter()
            .find(|r| r["message"] == message)
            .unwrap_or_else(|| panic!("no {message:?} record in {lines:#?}"))
    };
    for (message, level) in [
        ("authentication succeeded", "INFO"),
        ("authentication failed", "WARN"),
    ] {
        let record = find(message);
        assert_eq!(record["level"], level);
        assert_eq!(record["username"], "ann");
        assert_eq!(record["method"], "basic");
        assert_eq!(record["source_ip"], "127.0.0.1");
        let timestamp = record["timestamp"].as_str().unwrap();
        assert!(
            timestamp.len() >= 20 && timestamp.as_bytes()[10] == b'T',
            "ISO 8601: {timestamp}"
        );
    }
}

#[tokio::test]
async fn text_records_are_one_line_with_key_value_pairs() {
    let lines = log_lines("text", RIGHT_THEN_WRONG).await;
    let line = lines
        .iter()
        .find(|line| line.contains("authentication succeeded"))
        .unwrap_or_else(|| panic!("no success line in {lines:#?}"));
    let mut parts = line.split_whitespace();
    let timestamp = parts.next().unwrap();
    assert_eq!(timestamp.as_bytes()[10], b'T', "{line}");
    assert_eq!(parts.next(), Some("INFO"), "{line}");
    for pair in ["username=ann", "method=basic", "source_ip=127.0.0.1"] {
        assert!(line.contains(pair), "{pair} missing: {line}");
    }
}

#[tokio::test]
async fn a_newline_in_a_user_name_cannot_forge_a_text_record() {
    let lines = log_lines("text", &[(FORGED_USERNAME, WRONG_PASSWORD)]).await;
    let mentions: Vec<&String> = lines
        .iter()
        .filter(|line| line.contains("authentication") || line.contains("username=admin"))
        .collect();
    assert_eq!(
        mentions.len(),
        1,
        "one attempt, one record, no forged one: {lines:#?}"
    );
    let record = mentions[0];
    assert!(
        record.contains("WARN") && record.contains("authentication failed"),
        "{record}"
    );
    let escaped = FORGED_USERNAME.replace('\n', r"\n");
    assert!(
        record.contains(&format!(
            "username={escaped} method=basic source_ip=127.0.0.1"
        )),
        "the newline is escaped in place: {record}"
    );
}
