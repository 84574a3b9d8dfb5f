//! Every error the runtime builds has the wire shape the spec's schema gives it.

use mcp::Error;
use mcp::protocol::{
    ClientCapabilities, ElicitationCapability, ErrorCode, JsonRpcErrorResponse, RequestId, decode_message,
};
use mcp_testkit::spec::{MODERN, assert_valid};
use serde_json::{Value, json};

fn response(error: Error) -> Value {
    serde_json::to_value(JsonRpcErrorResponse::new(Some(RequestId::from(1)), error)).unwrap_or_default()
}

#[test]
fn each_error_code_matches_its_schema_definition() {
    let caps = ClientCapabilities { elicitation: Some(ElicitationCapability::default()), ..Default::default() };
    let cases = [
        (ErrorCode::HEADER_MISMATCH, Error::header_mismatch("Header mismatch: Mcp-Name"), "HeaderMismatchError"),
        (
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
            Error::missing_client_capability("needs elicitation", &caps),
            "MissingRequiredClientCapabilityError",
        ),
        (
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
            Error::unsupported_protocol_version("1900-01-01"),
            "UnsupportedProtocolVersionError",
        ),
    ];
    for (code, error, def) in cases {
        assert_eq!(error.code, code);
        assert_valid(MODERN, def, &response(error));
    }
    let objects = [
        (ErrorCode::INVALID_PARAMS, Error::unknown_tool("x"), "InvalidParamsError"),
        (ErrorCode::INVALID_PARAMS, Error::resource_not_found("file:///x"), "InvalidParamsError"),
        (ErrorCode::METHOD_NOT_FOUND, Error::method_not_found("x/y"), "MethodNotFoundError"),
        (ErrorCode::INTERNAL_ERROR, Error::internal("boom"), "InternalError"),
    ];
    for (code, error, def) in objects {
        assert_eq!(error.code, code);
        assert_valid(MODERN, def, &serde_json::to_value(error).unwrap_or_default());
    }
    let data = Error::unsupported_protocol_version("1900-01-01").data;
    assert_eq!(data, Some(json!({"supported": ["2026-07-28"], "requested": "1900-01-01"})));
    assert_eq!(Error::resource_not_found("file:///x").data, Some(json!({"uri": "file:///x"})));
}

#[test]
fn decode_errors_carry_the_code_and_the_id_when_it_can_be_read() {
    let parse = decode_message("{").expect_err("not JSON");
    assert_eq!((parse.code, parse.id.clone()), (ErrorCode::PARSE_ERROR, None));
    assert_valid(MODERN, "ParseError", &serde_json::to_value(parse.to_error_object()).unwrap_or_default());

    let invalid = decode_message(r#"{"jsonrpc":"2.0","id":"a","method":null}"#).expect_err("method must be a string");
    assert_eq!((invalid.code, invalid.id.clone()), (ErrorCode::INVALID_REQUEST, Some(RequestId::from("a"))));

    let params =
        decode_message(r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":[1]}"#).expect_err("array params");
    assert_eq!((params.code, params.id.clone()), (ErrorCode::INVALID_PARAMS, Some(RequestId::from(3))));

    // The schema's RequestId is a string or an integer.
    let float_id = decode_message(r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"#).expect_err("a float id");
    assert_eq!((float_id.code, float_id.id.clone()), (ErrorCode::INVALID_REQUEST, None));
    let big = decode_message(r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"tools/list"}"#);
    assert!(big.is_ok(), "any integer JSON can carry is an id");
}
