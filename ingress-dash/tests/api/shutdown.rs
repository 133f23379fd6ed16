//! SIGTERM with dashboards connected: the real binary ends its open streams and exits at once
//! instead of waiting out `server.shutdown_timeout` (a Kubernetes rollout would otherwise kill
//! the pod after its grace period with the streams still open).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use test_support::TempDir;
use test_support::kube_cluster::KubeCluster;

use crate::app::start_binary_with;
use crate::real_kube::write_kubeconfig;

#[test]
fn sigterm_ends_open_streams_and_the_process_promptly() {
    // The shared real API server, a namespace of the test's own.
    let cluster = KubeCluster::shared();
    cluster.apply("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shutdown-shop\n");
    let dir = TempDir::new("ingress-dash-kubeconfig");
    let kubeconfig = write_kubeconfig(&dir, cluster, cluster.admin_token());
    let (_binary, mut running) = start_binary_with(
        &format!(
            "  kubeconfig: {}\n  namespaces: [shutdown-shop]\n",
            kubeconfig.display()
        ),
        "60s",
        "",
    );

    let mut streams: Vec<TcpStream> = (0..3).map(|_| open_stream(&running.host_port)).collect();
    for stream in &mut streams {
        read_until(stream, "event: snapshot");
    }

    let asked = Instant::now();
    let status = running
        .terminate(Duration::from_secs(10))
        .expect("ingress-dash kept running with open streams (it waits out shutdown_timeout)");
    assert!(status.success(), "exit status after SIGTERM: {status}");
    assert!(asked.elapsed() < Duration::from_secs(10));
    for stream in &mut streams {
        stream
            .set_read_timeout(Some(Duration::from_secs(2)))
            .unwrap();
        let mut rest = Vec::new();
        // The chunked body is terminated and the connection closed, not reset mid-event.
        stream
            .read_to_end(&mut rest)
            .expect("the stream closes cleanly");
        assert!(
            String::from_utf8_lossy(&rest).ends_with("0\r\n\r\n") || rest.is_empty(),
            "{}",
            String::from_utf8_lossy(&rest)
        );
    }
}

fn open_stream(host_port: &str) -> TcpStream {
    let mut stream = TcpStream::connect(host_port).expect("connects");
    stream
        .write_all(b"GET /api/ingresses/stream HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n")
        .unwrap();
    stream
}

fn read_until(stream: &mut TcpStream, text: &str) {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    while !String::from_utf8_lossy(&received).contains(text) {
        let read = stream.read(&mut buffer).expect("stream data");
        assert!(
            read > 0,
            "stream closed early: {}",
            String::from_utf8_lossy(&received)
        );
        received.extend_from_slice(&buffer[..read]);
    }
}
