//! Writes the generated part of the committed seed corpus: genuine `requestState` tokens
//! (and their envelope payloads) under the fuzzing key ring, and encoded `Mcp-Param`
//! header values. The JSON-RPC and URI-template seeds are plain files written by hand.
//!
//! `cargo run --manifest-path fuzz/Cargo.toml --example seeds` (tokens carry a fresh
//! nonce, so rerunning changes them; the `request_state` target includes them, so
//! rebuild it afterwards).

use std::path::{Path, PathBuf};

use mcp::sealing::{AesGcmCodec, Binding, Envelope, RequestStateCodec, args_digest};
use mcp::wire::headers::encode_value;
use mcp_fuzz::{KEY_B, KEY_FOREIGN, ring_codec, single_codec};

/// 2026-01-01T00:00:00Z; the envelope checks in the target use the claims' own times.
const ISSUED_MS: u64 = 1_767_225_600_000;
const TTL_MS: u64 = 600_000;

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    println!("{} ({} bytes)", path.display(), bytes.len());
}

fn seal(codec: &AesGcmCodec, payload: &[u8]) -> String {
    codec.seal(payload).unwrap_or_else(|e| panic!("seal: {e}"))
}

fn envelope(method: &str, target: &str, args: Option<serde_json::Value>, state: &str, p: Option<&str>) -> Vec<u8> {
    let binding =
        Binding { method: method.to_owned(), target: target.to_owned(), args_digest: args_digest(args.as_ref()) };
    Envelope::new(ISSUED_MS, TTL_MS, &binding, state.to_owned(), Some("provisioner".to_owned()), p.map(str::to_owned))
        .to_payload()
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("seeds");
    let ring = ring_codec();
    let only_b = single_codec(KEY_B);
    let foreign = single_codec(KEY_FOREIGN);

    let dir = root.join("request_state");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let call = envelope(
        "tools/call",
        "provision_cluster",
        Some(serde_json::json!({"name": "analytics", "size_gb": 500})),
        r#"{"step":"confirm","region":"eu-west-1"}"#,
        None,
    );
    let read = envelope("resources/read", "db://orders/rows/7", None, "page=2", None);
    let claimed =
        envelope("prompts/get", "review", Some(serde_json::json!({})), "{}", Some("c2FsdHNhbHRoYXNoaGFzaGhhc2hoYXNo"));
    write(&dir, "genuine-a-tools-call.txt", seal(&ring, &call).as_bytes());
    write(&dir, "genuine-a-empty.txt", seal(&ring, b"").as_bytes());
    write(&dir, "genuine-b-resources-read.txt", seal(&only_b, &read).as_bytes());
    write(&dir, "genuine-b-principal.txt", seal(&only_b, &claimed).as_bytes());
    write(&dir, "foreign-key.txt", seal(&foreign, &call).as_bytes());
    write(&dir, "envelope-tools-call.bin", &call);
    write(&dir, "envelope-principal.bin", &claimed);

    let dir = root.join("mcp_param");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    for (name, value) in [
        ("plain.txt", "us-west1"),
        ("integer.txt", "-9007199254740991"),
        ("non-ascii.txt", "Zürich 東京"),
        ("padded.txt", "  padded\t"),
        ("marker-lookalike.txt", "=?base64?not really?="),
        ("empty.txt", ""),
        ("control.txt", "line\nbreak\u{7f}"),
    ] {
        write(&dir, name, encode_value(value).as_bytes());
    }
}
