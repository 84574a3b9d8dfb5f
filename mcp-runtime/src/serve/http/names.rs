//! The MCP header names, parsed once. A lookup by a `&str` name parses and lowercases the
//! name on every call; these are looked up on every request.

use http::HeaderName;

use crate::wire::headers;

/// `Mcp-Session-Id`.
pub(super) static SESSION_ID: HeaderName = HeaderName::from_static(headers::SESSION_ID);
