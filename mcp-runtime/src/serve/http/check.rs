//! The server's check of a 2026-07-28 request's headers against its body.

use http::HeaderMap;
use http::header::AsHeaderName;
use serde_json::Value;

use crate::Error;
use crate::protocol::tasks::methods as task_methods;
use crate::protocol::{Params, meta_version, methods, param};
use crate::wire::headers::{
    HeaderParam, METHOD, NAME, PARAM_PREFIX, PROTOCOL_VERSION, ParamKind, decode_value, is_plainly,
};

/// The one value of header `name`. A repeated header is a mismatch: a proxy that reads
/// another copy than we do must not route on a value we never checked.
fn header<'a>(headers: &'a HeaderMap, name: impl AsHeaderName, display: &str) -> Result<Option<&'a [u8]>, Error> {
    let mut values = headers.get_all(name).iter();
    let first = values.next();
    if values.next().is_some() {
        return Err(repeated(display));
    }
    Ok(first.map(|v| v.as_bytes()))
}

fn mismatch(message: String) -> Error {
    Error::header_mismatch(format!("Header mismatch: {message}"))
}

fn repeated(display: &str) -> Error {
    mismatch(format!("{display} header appears more than once"))
}

/// The values a request has of one header.
#[derive(Default)]
struct Seen<'a> {
    first: Option<&'a [u8]>,
    repeated: bool,
}

/// The three headers every 2026-07-28 request is checked by, found in one pass over the
/// request's headers (three lookups by name hashed each name and probed the map: several
/// times one pass over a request's dozen headers).
#[derive(Default)]
struct Routing<'a> {
    version: Seen<'a>,
    method: Seen<'a>,
    name: Seen<'a>,
}

impl<'a> Routing<'a> {
    fn read(headers: &'a HeaderMap) -> Self {
        let mut routing = Routing::default();
        // Every value of every header, repeated ones included.
        for (name, value) in headers {
            let seen = match name.as_str() {
                PROTOCOL_VERSION => &mut routing.version,
                METHOD => &mut routing.method,
                NAME => &mut routing.name,
                _ => continue,
            };
            seen.repeated |= seen.first.is_some();
            seen.first.get_or_insert(value.as_bytes());
        }
        routing
    }
}

/// Header `seen` (shown as `display`) is there, once, with the value `body`.
fn expect_header(seen: &Seen<'_>, display: &str, body: &str) -> Result<(), Error> {
    if seen.repeated {
        return Err(repeated(display));
    }
    let Some(raw) = seen.first else {
        return Err(mismatch(format!("{display} header is required")));
    };
    if is_plainly(raw, body) {
        return Ok(());
    }
    let value = decode_value(raw).map_err(|why| mismatch(format!("{display} header {why}")))?;
    if value != body {
        return Err(mismatch(format!("{display} header value '{value}' does not match body value '{body}'")));
    }
    Ok(())
}

/// Whether the JSON number `body` is the integer `value`, compared numerically: `7` and
/// `7.0` are both the integer 7 (JSON Schema's `integer` admits a zero fraction).
fn same_integer(body: &Value, value: i64) -> bool {
    match body.as_i64() {
        Some(b) => b == value,
        // Exact for the ±(2^53 − 1) range the spec allows for `x-mcp-header` integers.
        None => body.as_f64().is_some_and(|f| f.fract() == 0.0 && f == value as f64),
    }
}

/// Check a 2026-07-28 request's headers against its body.
///
/// `params` are the request's params; `tool_params` the header-mirrored arguments of
/// the called tool (for `tools/call`).
pub fn validate(
    headers: &HeaderMap,
    method: &str,
    params: Option<&Params>,
    tool_params: &[HeaderParam],
) -> Result<(), Error> {
    let routing = Routing::read(headers);
    if let Some(version) = meta_version(params).and_then(|version| version.as_str()) {
        expect_header(&routing.version, "MCP-Protocol-Version", &version)?;
    }
    expect_header(&routing.method, "Mcp-Method", method)?;
    let name_field = match method {
        methods::TOOLS_CALL | methods::PROMPTS_GET => Some("name"),
        methods::RESOURCES_READ => Some("uri"),
        // The tasks extension routes by task, so that a load balancer can reach the
        // instance holding it.
        task_methods::TASKS_GET | task_methods::TASKS_UPDATE | task_methods::TASKS_CANCEL => Some("taskId"),
        _ => None,
    };
    if let Some(field) = name_field
        && let Some(name) = param(params, field).and_then(Value::as_str)
    {
        expect_header(&routing.name, "Mcp-Name", name)?;
    }
    if tool_params.is_empty() {
        return Ok(());
    }
    let arguments = param(params, "arguments").and_then(Value::as_object);
    for param in tool_params {
        let display = format!("Mcp-Param-{}", param.header);
        let name = format!("{PARAM_PREFIX}{}", param.header.to_ascii_lowercase());
        let body = arguments.and_then(|a| a.get(&param.property)).filter(|v| !v.is_null());
        let raw = header(headers, name.as_str(), &display)?;
        let (body, raw) = match (body, raw) {
            (None, None) => continue,
            (None, Some(_)) => {
                return Err(mismatch(format!("{display} header is present but the body has no '{}'", param.property)));
            }
            (Some(_), None) => return Err(mismatch(format!("{display} header is required"))),
            (Some(body), Some(raw)) => (body, raw),
        };
        let value = decode_value(raw).map_err(|why| mismatch(format!("{display} header {why}")))?;
        let matches = match param.kind {
            ParamKind::String => body.as_str() == Some(&*value),
            ParamKind::Integer => value.parse::<i64>().ok().is_some_and(|v| same_integer(body, v)),
            ParamKind::Boolean => match &*value {
                "true" => body.as_bool() == Some(true),
                "false" => body.as_bool() == Some(false),
                _ => false,
            },
        };
        if !matches {
            let body = body.as_str().map_or_else(|| body.to_string(), str::to_owned);
            return Err(mismatch(format!("{display} header value '{value}' does not match body value '{body}'")));
        }
    }
    Ok(())
}
