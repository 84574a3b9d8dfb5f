//! The HTTP answers the endpoint builds, and small readers of request headers.

use http::{HeaderValue, Response, StatusCode, header};

use super::{HttpBody, HttpConfig, challenge};
use crate::handler::HttpRequest;
use crate::protocol::{Error, ErrorCode, RequestId};

/// A JSON response with a JSON-RPC error.
pub(super) fn error_response(
    status: StatusCode,
    id: Option<RequestId>,
    code: i32,
    message: impl Into<String>,
) -> Response<HttpBody> {
    let error = Error { code, message: message.into(), data: None };
    json_response(status, crate::handler::error_frame(id, error))
}

pub(super) fn json_response(status: StatusCode, body: String) -> Response<HttpBody> {
    let mut response = Response::new(HttpBody::full(body));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// `response` with its headers moved into the request's header map, when nothing else
/// holds the request's parts any more.
///
/// hyper keeps the map of the last response it wrote and parses the next request's headers
/// into it. A response's map is made for its two or three headers, so hyper would grow it
/// for every request (an allocation of over a kilobyte, past the allocator's per-thread
/// cache, for a dozen headers); the request's map, already that size, is grown once per
/// connection instead.
pub(super) fn reuse_request_headers(
    mut response: Response<HttpBody>,
    request: std::sync::Arc<HttpRequest>,
) -> Response<HttpBody> {
    let Ok(request) = std::sync::Arc::try_unwrap(request) else { return response };
    let mut headers = request.parts.headers;
    if headers.capacity() <= response.headers().capacity() {
        return response;
    }
    headers.clear();
    headers.extend(response.headers_mut().drain());
    *response.headers_mut() = headers;
    response
}

pub(super) fn empty_response(status: StatusCode) -> Response<HttpBody> {
    let mut response = Response::new(HttpBody::empty());
    *response.status_mut() = status;
    response
}

pub(super) fn session_not_found(id: Option<RequestId>) -> Response<HttpBody> {
    error_response(StatusCode::NOT_FOUND, id, ErrorCode::INVALID_REQUEST, "Session not found")
}

pub(super) fn method_not_allowed(allow: &'static str) -> Response<HttpBody> {
    let mut response = empty_response(StatusCode::METHOD_NOT_ALLOWED);
    response.headers_mut().insert(header::ALLOW, HeaderValue::from_static(allow));
    response
}

/// The HTTP status of a JSON-RPC error on the modern path.
pub(super) fn status_for(code: i32) -> StatusCode {
    match code {
        ErrorCode::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        ErrorCode::PARSE_ERROR
        | ErrorCode::INVALID_REQUEST
        | ErrorCode::INVALID_PARAMS
        | ErrorCode::HEADER_MISMATCH
        | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
        | ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => StatusCode::BAD_REQUEST,
        ErrorCode::INTERNAL_ERROR => StatusCode::INTERNAL_SERVER_ERROR,
        ErrorCode::SERVER_BUSY => StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::REQUEST_TIMEOUT => StatusCode::GATEWAY_TIMEOUT,
        ErrorCode::INSUFFICIENT_SCOPE => StatusCode::FORBIDDEN,
        _ => StatusCode::OK,
    }
}

/// The JSON answer carrying a request's final frame, with `code` if it is an error. Its
/// status follows the code on the modern path and is 200 on the legacy one, except for a
/// scope refusal: 403 with an `insufficient_scope` challenge on both, since 2025-11-25
/// clients step up too.
pub(super) fn final_response(
    config: &HttpConfig,
    frame: String,
    code: Option<i32>,
    legacy: bool,
) -> Response<HttpBody> {
    match code {
        Some(ErrorCode::INSUFFICIENT_SCOPE) => {
            let scopes = required_scopes(&frame);
            let mut response = json_response(StatusCode::FORBIDDEN, frame);
            let value = challenge::bearer(config, Some(challenge::INSUFFICIENT_SCOPE), Some(&scopes));
            response.headers_mut().insert(header::WWW_AUTHENTICATE, value);
            response
        }
        Some(code) if !legacy => json_response(status_for(code), frame),
        _ => json_response(StatusCode::OK, frame),
    }
}

/// The scopes named by the insufficient-scope error in `frame` (a JSON-RPC error response).
fn required_scopes(frame: &str) -> Vec<String> {
    serde_json::from_str::<crate::protocol::JsonRpcErrorResponse>(frame)
        .ok()
        .and_then(|response| response.error.required_scopes())
        .unwrap_or_default()
}

pub(super) fn accepts<const N: usize>(headers: &http::HeaderMap, wanted: &[&str; N]) -> bool {
    // One pass over the media ranges, compared in place without lowercased copies: this
    // runs on every POST. Split as bytes, with `memchr` (`str::split(char)` sets up a
    // searcher per call; a closure tried on each byte costs a few instructions a byte,
    // about as much as the rest of the check). A value is read as bytes,
    // not first checked for text: bytes past ASCII elsewhere in it (RFC 9110's obs-text)
    // do not hide a range that names what is wanted.
    let mut found = [false; N];
    for value in &headers.get_all(header::ACCEPT) {
        let mut rest = value.as_bytes();
        while !rest.is_empty() {
            let end = memchr::memchr(b',', rest).unwrap_or(rest.len());
            let range = before_parameters(&rest[..end]);
            rest = rest.get(end + 1..).unwrap_or_default();
            for (want, found) in wanted.iter().zip(&mut found) {
                *found |= covers(range, want.as_bytes());
            }
            if found.iter().all(|f| *f) {
                return true;
            }
        }
    }
    found.iter().all(|f| *f)
}

/// Whether media range `range` covers media type `want` (`type/subtype`, one `/`: the
/// callers' constants): it is that type, `type/*` or `*/*`, compared case-blind.
fn covers(range: &[u8], want: &[u8]) -> bool {
    debug_assert_eq!(want.iter().filter(|b| **b == b'/').count(), 1, "a media type, not a range");
    match range.strip_suffix(b"/*") {
        Some(b"*") => true,
        Some(family) => want.get(family.len()) == Some(&b'/') && want[..family.len()].eq_ignore_ascii_case(family),
        // Most clients write it as we do: one comparison of memory first.
        None => range == want || range.eq_ignore_ascii_case(want),
    }
}

/// A media type or range without its parameters (`; q=0.9`, `; charset=utf-8`), trimmed.
pub(super) fn before_parameters(media: &[u8]) -> &[u8] {
    media[..memchr::memchr(b';', media).unwrap_or(media.len())].trim_ascii()
}

pub(super) fn session_id(headers: &http::HeaderMap) -> Option<&str> {
    headers.get(&super::names::SESSION_ID).and_then(|v| v.to_str().ok())
}

pub(super) fn sse_response(body: HttpBody, status: Option<StatusCode>) -> Response<HttpBody> {
    let mut response = Response::new(body);
    *response.status_mut() = status.unwrap_or(StatusCode::OK);
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(values: &[&str]) -> http::HeaderMap {
        let mut map = http::HeaderMap::new();
        for v in values {
            map.append(header::ACCEPT, HeaderValue::from_str(v).expect("test header"));
        }
        map
    }

    fn request_parts(headers: usize) -> std::sync::Arc<HttpRequest> {
        let mut request = http::Request::new(());
        for i in 0..headers {
            let name = http::HeaderName::from_bytes(format!("x-test-{i}").as_bytes()).expect("test name");
            request.headers_mut().insert(name, HeaderValue::from_static("v"));
        }
        std::sync::Arc::new(HttpRequest { parts: request.into_parts().0, peer: None })
    }

    fn response() -> Response<HttpBody> {
        let mut response = json_response(StatusCode::OK, "{}".to_owned());
        response.headers_mut().append(header::VARY, HeaderValue::from_static("a"));
        response.headers_mut().append(header::VARY, HeaderValue::from_static("b"));
        response
    }

    fn listed(response: &Response<HttpBody>) -> Vec<(String, String)> {
        let headers = response.headers().iter();
        headers.map(|(n, v)| (n.to_string(), v.to_str().unwrap_or_default().to_owned())).collect()
    }

    /// The response keeps exactly its own headers (repeated ones included, none of the
    /// request's) in the request's bigger map, and is left alone when the request's parts
    /// are still held elsewhere or their map is no bigger.
    #[test]
    fn a_response_moves_into_the_request_header_map() {
        let parts = request_parts(12);
        let capacity = parts.parts.headers.capacity();
        let reused = reuse_request_headers(response(), parts);
        assert_eq!(listed(&reused), listed(&response()));
        assert_eq!(reused.headers().capacity(), capacity);
        assert!(capacity > response().headers().capacity());

        let parts = request_parts(12);
        let held = std::sync::Arc::clone(&parts);
        let kept = reuse_request_headers(response(), parts);
        assert_eq!(kept.headers().capacity(), response().headers().capacity());
        assert_eq!(held.parts.headers.len(), 12);

        let small = reuse_request_headers(response(), request_parts(0));
        assert_eq!(listed(&small), listed(&response()));
    }

    #[test]
    fn accepts_reads_media_ranges_case_blind_with_wildcards_and_parameters() {
        let both = ["application/json", "text/event-stream"];
        let cases: [(&[&str], bool); 10] = [
            (&["application/json, text/event-stream"], true),
            (&["Application/JSON;q=0.9 ,  TEXT/Event-Stream"], true),
            (&["application/json", "text/event-stream"], true),
            (&["*/*"], true),
            (&["application/*, text/*"], true),
            (&["APPLICATION/*;q=1, text/event-stream"], true),
            (&["application/json"], false),
            (&["text/*"], false),
            (&["application/jsonx, text/event-stream"], false),
            (&[], false),
        ];
        for (values, expected) in cases {
            assert_eq!(accepts(&headers(values), &both), expected, "{values:?}");
        }
        assert!(accepts(&headers(&["text/event-stream;charset=utf-8"]), &["text/event-stream"]));
        assert!(!accepts(&headers(&["text/*/*"]), &["text/event-stream"]));
        assert!(!accepts(&headers(&["*"]), &["text/event-stream"]));
        assert!(!accepts(&headers(&["tex/*"]), &["text/event-stream"]));
        assert!(!accepts(&headers(&["text/event-strea"]), &["text/event-stream"]));
        assert!(accepts(&headers(&["TEXT/*; q=0.5"]), &["text/event-stream"]));
        // Bytes past ASCII in another range do not hide the one wanted.
        let mut obs_text = http::HeaderMap::new();
        let value = http::HeaderValue::from_bytes(b"text/\xe9t\xe9, text/event-stream").expect("obs-text is allowed");
        obs_text.insert(header::ACCEPT, value);
        assert!(accepts(&obs_text, &["text/event-stream"]));
        assert!(!accepts(&headers(&["text/plain"]), &["text/event-stream"]));
    }
}
