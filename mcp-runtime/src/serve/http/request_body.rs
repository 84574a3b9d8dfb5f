//! Reading a POST body: its request slot is taken first, then the bytes are read within a
//! size limit and a deadline.

use std::sync::Arc;
use std::time::Duration;

use bytes::{Buf, Bytes, BytesMut};
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
    match crate::limits::within(deadline, whole(http_body_util::Limited::new(body, limit))).await {
        Ok(Ok(bytes)) => Ok(bytes),
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

/// All of `body`'s data. A body that arrives in one frame (most do: a small request is
/// read with its head) is that frame's bytes, shared rather than first put in a list of
/// frames (`BodyExt::collect`'s, an allocation per request); a body of several frames is
/// copied into one buffer. Trailers are dropped.
async fn whole<B: http_body::Body>(body: B) -> Result<Bytes, B::Error> {
    let mut body = std::pin::pin!(body);
    let mut first: Option<Bytes> = None;
    let mut joined: Option<BytesMut> = None;
    while let Some(frame) = body.frame().await {
        let Ok(mut data) = frame?.into_data() else { continue };
        let bytes = data.copy_to_bytes(data.remaining());
        match (&first, &mut joined) {
            (None, _) => first = Some(bytes),
            (Some(_), Some(joined)) => joined.extend_from_slice(&bytes),
            (Some(one), None) => {
                let mut both = BytesMut::with_capacity(one.len() + bytes.len());
                both.extend_from_slice(one);
                both.extend_from_slice(&bytes);
                joined = Some(both);
            }
        }
    }
    Ok(match joined {
        Some(joined) => joined.freeze(),
        None => first.unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::convert::Infallible;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use http_body::Frame;

    use super::*;

    /// A body that yields the given frames, each on its own poll.
    struct Frames(VecDeque<Frame<Bytes>>);

    impl http_body::Body for Frames {
        type Data = Bytes;
        type Error = Infallible;

        fn poll_frame(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            Poll::Ready(self.0.pop_front().map(Ok))
        }
    }

    fn data(s: &'static str) -> Frame<Bytes> {
        Frame::data(Bytes::from_static(s.as_bytes()))
    }

    async fn read(frames: Vec<Frame<Bytes>>) -> Bytes {
        whole(Frames(frames.into())).await.unwrap_or_else(|e: Infallible| match e {})
    }

    #[tokio::test]
    async fn a_body_is_all_its_data_frames_in_order() {
        let trailers = || Frame::trailers(http::HeaderMap::new());
        assert_eq!(read(vec![]).await, "");
        assert_eq!(read(vec![data("{\"a\":1}")]).await, "{\"a\":1}");
        assert_eq!(read(vec![data("{\"a\""), data(":1"), trailers(), data("}")]).await, "{\"a\":1}");
        assert_eq!(read(vec![data(""), data("x")]).await, "x");
        assert_eq!(read(vec![trailers()]).await, "");
    }

    #[tokio::test]
    async fn one_frame_is_shared_not_copied() {
        let frame = Bytes::from(b"{\"jsonrpc\":\"2.0\"}".to_vec());
        let address = frame.as_ptr();
        assert_eq!(read(vec![Frame::data(frame)]).await.as_ptr(), address);
    }

    #[tokio::test]
    async fn the_limit_still_refuses_a_body_too_large() {
        let limited = http_body_util::Limited::new(Frames(vec![data("12345"), data("678")].into()), 6);
        let refused =
            whole(limited).await.err().map(|e| e.downcast_ref::<http_body_util::LengthLimitError>().is_some());
        assert_eq!(refused, Some(true));
        let fits = http_body_util::Limited::new(Frames(vec![data("12345"), data("6")].into()), 6);
        assert_eq!(whole(fits).await.ok(), Some(Bytes::from_static(b"123456")));
    }
}
