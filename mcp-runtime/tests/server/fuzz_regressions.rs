//! Inputs the fuzz targets in `fuzz/` once failed on, kept as plain tests so `cargo test`
//! guards them without a fuzzing run.

use mcp::items::template::UriTemplate;
use mcp::protocol::{JsonRpcMessage, decode_message};

fn decode(text: &str) -> JsonRpcMessage {
    decode_message(text).unwrap_or_else(|e| panic!("{text}: {e:?}"))
}

/// jsonrpc_decode: `1e-63` was read one ulp off, so a float argument reached the handler
/// (and a float in a result reached the client) as `9.999999999999999e-64`.
#[test]
fn floats_survive_decode_and_encode_exactly() {
    let numbers =
        ["1e-63", "-1e-63", "9.999999999999999e-64", "1.7976931348623157e308", "5e-324", "0.30000000000000004"];
    for number in numbers {
        for text in [
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"arguments":{{"x":[{number}]}}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"x":{number}}}}}"#),
        ] {
            let message = decode(&text);
            let expected: f64 = number.parse().unwrap_or_else(|e| panic!("{number}: {e}"));
            let value = serde_json::to_value(&message).unwrap_or_else(|e| panic!("{e}"));
            let read = value.pointer("/params/arguments/x/0").or_else(|| value.pointer("/result/x"));
            assert_eq!(read.and_then(serde_json::Value::as_f64).map(f64::to_bits), Some(expected.to_bits()), "{text}");
            let encoded = serde_json::to_string(&message).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(decode(&encoded), message, "{text} re-encoded as {encoded}");
        }
    }
}

/// uri_template: `%+9` was decoded as a tab (`from_str_radix` takes a sign).
#[test]
fn percent_sequences_need_two_hex_digits() {
    let template = UriTemplate::parse("x://{id}/data").unwrap_or_else(|e| panic!("{e}"));
    for bad in ["x://%+9a/data", "x://%-1/data", "x://%9/data", "x://% 9/data"] {
        assert_eq!(template.matches(bad), None, "{bad}");
    }
    let vars = template.matches("x://%2b9%C3%a9/data").unwrap_or_else(|| panic!("no match"));
    assert_eq!(vars.get("id").map(String::as_str), Some("+9é"));
}
