//! The MCP header names, parsed once. A lookup by a `&str` name parses and lowercases the
//! name on every call; these are looked up on every request.

use http::HeaderName;

use crate::wire::headers;

/// `MCP-Protocol-Version`.
pub(super) static PROTOCOL_VERSION: HeaderName = HeaderName::from_static(headers::PROTOCOL_VERSION);
/// `Mcp-Method`.
pub(super) static METHOD: HeaderName = HeaderName::from_static(headers::METHOD);
/// `Mcp-Name`.
pub(super) static NAME: HeaderName = HeaderName::from_static(headers::NAME);
/// `Mcp-Session-Id`.
pub(super) static SESSION_ID: HeaderName = HeaderName::from_static(headers::SESSION_ID);
