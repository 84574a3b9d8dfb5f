//! Reading a POST body: its request slot is taken first, then the bytes are read within a
//! size limit and a deadline.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header};
use http_body_util::BodyExt;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::HttpBody;
use super::reply::error_response;
use crate::protocol::ErrorCode;

/// The 413 for a body over `limit` bytes (declared or read).
pub(super) fn too_large(limit: usize) -> Response<HttpBody> {
    tracing::warn!(limit, "rejecting a request body over the size limit");
    error_response(
        StatusCode::PAYLOAD_TOO_LARGE,
        None,
        ErrorCode::INVALID_REQUEST,
        format!("Request body exceeds {limit} bytes"),
    )
}

/// A slot of the request pool, taken before the body is read, so a full pool costs no
/// body memory; `Err` is the 503 (with `Retry-After`) to answer instead. The request id
/// is not known yet, so the error's id is null.
pub(super) fn request_slot(permits: &Arc<Semaphore>, limit: usize) -> Result<OwnedSemaphorePermit, Response<HttpBody>> {
    Arc::clone(permits).try_acquire_owned().map_err(|_| {
        tracing::warn!(limit, "refusing a request: the concurrent request limit is reached");
        let busy = crate::handler::busy();
        let mut response = error_response(StatusCode::SERVICE_UNAVAILABLE, None, busy.code, &busy.message);
        response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        response
    })
}

/// The whole body, at most `limit` bytes, within `deadline` (from its first read). A body that does not arrive
/// in time gets 408 with `Connection: close`: the rest of it may still be on its way, so
/// the connection cannot carry another request.
pub(super) async fn read<B>(body: B, limit: usize, deadline: Duration) -> Result<Bytes, Response<HttpBody>>
where
    B: http_body::Body,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    match crate::limits::within(deadline, http_body_util::Limited::new(body, limit).collect()).await {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(e)) if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() => Err(too_large(limit)),
        Ok(Err(_)) => Err(error_response(
            StatusCode::BAD_REQUEST,
            None,
            ErrorCode::INVALID_REQUEST,
            "Could not read the request body",
        )),
        Err(_) => {
            tracing::warn!(?deadline, "closing a connection: the request body did not arrive in time");
            let mut response = error_response(
                StatusCode::REQUEST_TIMEOUT,
                None,
                ErrorCode::INVALID_REQUEST,
                "Request Timeout: the request body did not arrive in time",
            );
            response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
            Err(response)
        }
    }
}
