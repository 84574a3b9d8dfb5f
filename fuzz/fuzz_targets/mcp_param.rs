//! The `Mcp-Param-*` (and `Mcp-Method`, `Mcp-Name`) header value decoder,
//! `mcp::wire::headers::decode_value`: arbitrary header bytes never panic, and
//! `encode_value` produces a legal header value that decodes back to the exact string,
//! for the input's text and for whatever the decoder made of the input.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp::wire::headers::{decode_value, encode_value};
use mcp_fuzz::text_prefix;

fn round_trip(value: &str) {
    let encoded = encode_value(value);
    // A header value a client can send: visible ASCII and inner spaces (RFC 9110 field-value,
    // leaving out obs-text and horizontal tabs), no leading or trailing whitespace.
    assert!(
        encoded.bytes().all(|b| (0x20..0x7f).contains(&b)),
        "encode_value({value:?}) = {encoded:?} is not a plain header value"
    );
    assert!(!encoded.is_empty() && !encoded.starts_with(' ') && !encoded.ends_with(' '), "{value:?} -> {encoded:?}");
    match decode_value(encoded.as_bytes()) {
        Ok(decoded) => assert_eq!(decoded, value, "round trip through {encoded:?}"),
        Err(why) => panic!("encode_value({value:?}) = {encoded:?} does not decode: {why}"),
    }
    if !encoded.starts_with("=?base64?") {
        assert_eq!(encoded, value, "a value sent as is must be the value itself");
    }
}

fuzz_target!(|data: &[u8]| {
    let decoded = decode_value(data);
    match &decoded {
        Ok(value) => round_trip(value),
        Err(why) => assert!(!why.is_empty()),
    }
    round_trip(text_prefix(data));
});
