//! `mcp::protocol::decode_message` on arbitrary text: it never panics, every refusal
//! carries a JSON-RPC error code, and whatever decodes survives a round trip: encoding
//! it and decoding the result gives back an equal message, and encoding that again
//! gives the same text. A request's params, kept as the text they arrived as, give each
//! member read alone as the whole object has it.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp::protocol::{JsonObject, JsonRpcMessage, decode_message};
use mcp_fuzz::text_prefix;

fn encode(message: &JsonRpcMessage) -> String {
    serde_json::to_string(message).unwrap_or_else(|e| panic!("a decoded message does not encode: {e}"))
}

fuzz_target!(|data: &[u8]| {
    let text = text_prefix(data);
    let message = match decode_message(text) {
        Ok(message) => message,
        Err(error) => {
            // JSON-RPC reserves -32768..=-32000 for the codes a decoder answers with.
            assert!((-32768..=-32000).contains(&error.code), "decode error with code {}: {error:?}", error.code);
            assert!(!error.message.is_empty(), "decode error without a message");
            return;
        }
    };
    if let JsonRpcMessage::Request(request) = &message
        && let Some(params) = &request.params
    {
        let object: &JsonObject = params;
        for (key, value) in object {
            assert_eq!(params.get(key), Some(value), "member {key:?} read alone differs\n  input: {text}");
        }
    }
    let encoded = encode(&message);
    let again = decode_message(&encoded).unwrap_or_else(|e| {
        panic!("re-encoded message does not decode: {e:?}\n  input:      {text}\n  re-encoded: {encoded}")
    });
    assert_eq!(again, message, "round trip changed the message\n  input:      {text}\n  re-encoded: {encoded}");
    assert_eq!(encode(&again), encoded, "encoding is not stable\n  input: {text}");
});
